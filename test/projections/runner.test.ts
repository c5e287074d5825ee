import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { inTransaction } from '../../adapters/db'
import { noPause } from '../../projections/projector'
import { rebuildProjector } from '../../projections/rebuild'
import { dump } from '../../testkit/rows'
import { upload, waitForTask } from '../helpers/ingestion'
import { newKey, tool } from '../helpers/agents'
import { silent } from '../helpers/silentLog'
import { ADMIN, type TestService, ok, seedMember, startTestService } from '../helpers/service'
import { type Site, html, startSite } from '../helpers/site'
import { until } from '../helpers/until'

const test = suite<{ svc: TestService; site: Site }>('projections: runner, idempotence, rebuild')
test.before(async (ctx) => {
  ctx.site = await startSite()
  ctx.svc = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true' })
  for (let i = 0; i < 3; i++) await seedMember(ctx.svc.call, 'editor')
  // Events for every projector: entries, a content change, a move, a verification, a deletion, folders, config.
  const m = await seedMember(ctx.svc.call, 'owner')
  const call = (method: string, path: string, body?: object) => ctx.svc.call(method, path, { token: m.token, body })
  const f = ok(await call('POST', '/api/v1/knowledge/folders', { name: 'F', color: '#abc' }), 201)
  ok(await call('PATCH', '/api/v1/knowledge/config', { ingestion: { chunkSize: 120, chunkOverlap: 10 } }))
  const a = ok(
    await call('POST', '/api/v1/knowledge', {
      title: 'A',
      source: 'text',
      content: 'Alpha sentence. '.repeat(80),
      folderId: f.id,
      metadata: { tags: ['t'] },
    }),
    201,
  )
  const b = ok(await call('POST', '/api/v1/knowledge', { title: 'B', source: 'faq', content: 'Beta.' }), 201)
  ok(
    await call('PATCH', `/api/v1/knowledge/${a.id}`, {
      content: 'Changed alpha. '.repeat(60),
      metadata: { author: 'x' },
    }),
  )
  ok(await call('POST', `/api/v1/knowledge/${b.id}/move`, { folderId: f.id }))
  ok(await call('POST', `/api/v1/knowledge/${b.id}/verify`))
  ok(await call('PATCH', `/api/v1/knowledge/folders/${f.id}`, { name: 'F2' }))
  ok(await call('DELETE', `/api/v1/knowledge/${b.id}`))
  // Tasks: a URL entry synced once, a file, a failed fetch.
  ctx.site.pages.set('/p', { body: html('P', '<p>A page to ingest and sync.</p>') })
  const u = ok(await call('POST', '/api/v1/knowledge', { title: 'U', source: 'url', url: `${ctx.site.url}/p` }), 201)
  await waitForTask(ctx.svc.call, m.token, u.taskId)
  ok(await call('PATCH', `/api/v1/knowledge/${u.id}/sync-config`, { enabled: true, intervalHours: 2 }))
  await waitForTask(ctx.svc.call, m.token, ok(await call('POST', `/api/v1/knowledge/${u.id}/sync`), 202).taskId)
  const file = ok(
    await upload(
      ctx.svc.url,
      m.token,
      { title: 'F', source: 'file' },
      { bytes: Buffer.from('A stored file.'), name: 'f.txt' },
    ),
    201,
  )
  await waitForTask(ctx.svc.call, m.token, file.taskId)
  const broken = ok(
    await call('POST', '/api/v1/knowledge', { title: 'X', source: 'url', url: `${ctx.site.url}/missing` }),
    201,
  )
  await waitForTask(ctx.svc.call, m.token, broken.taskId)
  // Pages written, searched, verified, reverted, held, approved, rejected, published, deleted.
  ok(await call('PATCH', '/api/v1/knowledge/config', { verification: { enabled: true } }))
  const key = (await newKey(ctx.svc.call, m.workspaceId, 'agent')).api_key
  const held = ok(await call('POST', '/api/v1/collections', { name: 'Held', writePolicy: 'hold_for_review' }), 201)
  const pg = ok(await call('POST', '/api/v1/pages', { title: 'Page', content: 'One.', collectionId: held.id }), 201)
  ok(await call('POST', `/api/v1/pages/${pg.id}/verify`))
  ok(await call('PATCH', `/api/v1/pages/${pg.id}`, { content: 'Two.' }))
  ok(await call('POST', `/api/v1/pages/${pg.id}/revert`, { version: 1 }))
  ok(await tool(ctx.svc.call, key, 'page_search', { query: 'one', mode: 'text', minScore: 0 }))
  const approve = ok(await tool(ctx.svc.call, key, 'page_write', { pageId: pg.id, content: 'Three.' }))
  const reject = ok(await tool(ctx.svc.call, key, 'page_write', { pageId: pg.id, content: 'Four.' }))
  ok(await call('POST', `/api/v1/proposals/${approve.proposalId}/approve`, {}))
  ok(await call('POST', `/api/v1/proposals/${reject.proposalId}/reject`, {}))
  ok(await call('POST', '/api/v1/packs', { collectionId: held.id, slug: 'runner-pack' }), 201)
  const gone = ok(await tool(ctx.svc.call, key, 'page_write', { title: 'Gone', content: 'Soon deleted.' }))
  ok(await call('DELETE', `/api/v1/pages/${gone.pageId}`))
  ok(await call('PATCH', `/api/v1/collections/${held.id}`, { name: 'Held2' }))
  // An undo of an editor's metadata change: the metadata restored whole.
  const editor = await seedMember(ctx.svc.call, 'editor', m.workspaceId)
  const from = new Date().toISOString()
  ok(
    await ctx.svc.call('PATCH', `/api/v1/knowledge/${a.id}`, {
      token: editor.token,
      body: { metadata: { tags: ['x'] } },
    }),
  )
  const undone = ok(await call('POST', '/api/v1/undo', { actor: editor.userId, from, to: new Date().toISOString() }))
  assert.equal(
    undone.items.map((i: any) => i.status),
    ['done'],
  )
  // Webhooks: one deleted, one whose first delivery fails (the site answers no POST with a 2xx).
  const hook = ok(
    await call('POST', '/api/v1/webhooks', { url: `${ctx.site.url}/hook`, events: ['FolderCreated'] }),
    201,
  )
  const dropped = ok(await call('POST', '/api/v1/webhooks', { url: `${ctx.site.url}/other`, events: ['*'] }), 201)
  ok(await call('DELETE', `/api/v1/webhooks/${dropped.id}`))
  ok(await call('POST', '/api/v1/knowledge/folders', { name: 'Hooked' }), 201)
  await until(
    'a delivery try',
    async () => ok(await call('GET', `/api/v1/webhooks/${hook.id}/deliveries`)).deliveries.length > 0,
  )
  // An MCP client signed in through OAuth: registered, granted, its code exchanged, its tokens refreshed.
  const oauth = (path: string, init: RequestInit) => fetch(`${ctx.svc.url}${path}`, { method: 'POST', ...init })
  const redirect = 'http://127.0.0.1:9/cb'
  const client = await (
    await oauth('/oauth/register', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'runner-client', redirect_uris: [redirect] }),
    })
  ).json()
  const request = {
    client_id: client.client_id,
    redirect_uri: redirect,
    response_type: 'code',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }
  const granted = ok(await call('POST', '/api/v1/oauth/grants', { request, approve: true }))
  const form = (fields: Record<string, string>) => ({
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: client.client_id, ...fields }),
  })
  const tokens = await (
    await oauth(
      '/oauth/token',
      form({
        grant_type: 'authorization_code',
        code: new URL(granted.redirectTo).searchParams.get('code')!,
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        redirect_uri: redirect,
      }),
    )
  ).json()
  const refreshed = await oauth(
    '/oauth/token',
    form({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }),
  )
  assert.is(refreshed.status, 200)
  await ctx.svc.deps.citations.settle()
  await ctx.svc.deps.runner.waitFor(await ctx.svc.deps.store.headPosition(), 10000)
})
test.after(async ({ svc, site }) => (await svc.stop(), await site.close()))

test('every projector is idempotent: applying every event twice changes nothing', async ({ svc }) => {
  const { db, store } = svc.deps
  const events = await store.readAll({})
  for (const p of svc.deps.runner.projectors) {
    const before = await dump(db, p)
    assert.ok(
      Object.values(before).some((rows) => rows.length > 0),
      `${p.name} has rows to compare`,
    )
    await inTransaction(db.pool, async (tx) => {
      for (const e of events) if (p.handles === 'all' || p.handles.includes(e.type)) await p.apply(tx, e, noPause)
    })
    assert.equal(await dump(db, p), before, p.name)
    if (p.applyEvents) {
      await inTransaction(db.pool, (tx) =>
        p.applyEvents!(
          tx,
          events.filter((e) => p.handles === 'all' || p.handles.includes(e.type)),
        ),
      )
      assert.equal(await dump(db, p), before, `${p.name}, all events in one call`)
    }
  }
})

test('rebuild from zero into fresh tables equals the live tables, and the API keeps answering', async ({ svc }) => {
  const { db, store } = svc.deps
  const m = await seedMember(svc.call)
  for (const p of svc.deps.runner.projectors) {
    const before = await dump(db, p)
    // Reads during the rebuild keep working against the old tables.
    const reading = (async () => {
      for (let i = 0; i < 5; i++) ok(await svc.call('POST', '/api/v1/auth/validate', { token: m.token }))
    })()
    const report = await rebuildProjector(db, store, p, silent)
    await reading
    assert.is(report.position, await store.headPosition())
    assert.equal(await dump(db, p), before, p.name)
  }
  const leftovers = await db.pool.query("SELECT count(*)::int AS n FROM pg_namespace WHERE nspname LIKE 'kb_rebuild_%'")
  assert.is(leftovers.rows[0].n, 0)
})

test('the admin endpoint rebuilds all and reports status with lag 0; unknown name 404', async ({ svc }) => {
  const rebuilt = ok(await svc.call('POST', '/api/v1/admin/projections/all/rebuild', { token: ADMIN }))
  assert.equal(
    rebuilt.rebuilt.map((r: any) => r.name),
    svc.deps.runner.projectors.map((p) => p.name),
  )
  const status = ok(await svc.call('GET', '/api/v1/admin/projections', { token: ADMIN }))
  assert.ok(status.head > 0)
  for (const p of status.projections) {
    assert.is(p.lag, 0)
    assert.is(p.state, 'running')
  }
  const missing = await svc.call('POST', '/api/v1/admin/projections/nope/rebuild', { token: ADMIN })
  assert.is(missing.status, 404)
  // Writes after the swap land in the new tables.
  const m = await seedMember(svc.call)
  ok(await svc.call('POST', '/api/v1/auth/validate', { token: m.token }))
  // Once a write is answered no projector lags behind it, those that do not handle it included.
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'After the swap' } }), 201)
  const after = ok(await svc.call('GET', '/api/v1/admin/projections', { token: ADMIN }))
  assert.equal(
    after.projections.filter((p: any) => p.lag !== 0),
    [],
  )
})

test('read-your-writes: a lagging read model sets x-read-models-lag on the write answer', async () => {
  const svc = await startTestService({ READ_YOUR_WRITES_TIMEOUT_MS: '0' })
  try {
    // Stop the projectors so no write can be caught up with.
    await svc.deps.runner.stop()
    const r = await svc.call('POST', '/api/v1/admin/users', {
      token: ADMIN,
      body: { email: 'lag@example.com', name: 'L' },
    })
    assert.is(r.status, 201)
    assert.is(r.headers.get('x-read-models-lag'), 'true')
  } finally {
    await svc.stop()
  }
})

test(
  'read-your-writes: a write answer read back after the wait gave up says so, though the read models ' +
    'caught up since',
  async () => {
    const svc = await startTestService()
    try {
      const m = await seedMember(svc.call, 'owner')
      // The read models reach the write only after the wait gave up (a rebuild holding them, say).
      const runner = svc.deps.runner
      const wait = runner.waitFor.bind(runner)
      let givingUp = false
      runner.waitFor = async (position, ms) => {
        if (!givingUp) return wait(position, ms)
        givingUp = false
        return false
      }
      const writes: [string, object][] = [
        ['/api/v1/knowledge', { title: 'Lagging', source: 'text', content: 'Written while the read models lag.' }],
        ['/api/v1/knowledge/folders', { name: 'Lagging' }],
        ['/api/v1/pages', { title: 'Lagging', content: 'x' }],
        ['/api/v1/collections', { name: 'Lagging' }],
      ]
      for (const [path, body] of writes) {
        givingUp = true
        const w = await svc.call('POST', path, { token: m.token, body })
        assert.is(w.status, 201, path)
        assert.is(w.headers.get('x-read-models-lag'), 'true', path)
      }
    } finally {
      await svc.stop()
    }
  },
)

test('graceful stop: an in-flight request finishes, new connections are refused', async () => {
  const svc = await startTestService()
  const inFlight = svc.call('POST', '/api/v1/admin/projections/all/rebuild', { token: ADMIN })
  await new Promise((r) => setTimeout(r, 20))
  const stopped = svc.stop()
  const r = await inFlight
  assert.is(r.status, 200)
  assert.is(r.body.data.rebuilt.length, svc.deps.runner.projectors.length)
  await stopped
  let refused = false
  await svc.call('GET', '/health').catch(() => (refused = true))
  assert.ok(refused)
})

test.run()
