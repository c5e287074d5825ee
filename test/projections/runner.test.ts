import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { inTransaction } from '../../adapters/db'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import type { Projector } from '../../projections/projector'
import { rebuildProjector } from '../../projections/rebuild'
import { installProjector } from '../../projections/projector'
import { DependencyUnavailable } from '../../adapters/unavailable'
import { ProjectionRunner } from '../../projections/runner'
import { event } from '../contract/eventstore'
import { testPglite } from '../../testkit/db'
import { dump } from '../../testkit/rows'
import { upload, waitForTask } from '../helpers/ingestion'
import { newKey, tool } from '../helpers/agents'
import { ADMIN, type TestService, ok, seedMember, startTestService } from '../helpers/service'
import { type Site, html, startSite } from '../helpers/site'
import { until } from '../helpers/until'

const silent = pino({ level: 'silent' })

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
      for (const e of events) if (p.handles === 'all' || p.handles.includes(e.type)) await p.apply(tx, e)
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

test(
  'a projector that throws stops at that event, logs its position, and never skips it; the others sharing ' +
    'its batches go on',
  async () => {
    const db = await testPglite()
    const store = await PostgresEventStore.open(db)
    const lines: any[] = []
    const log = pino({ level: 'error' }, { write: (s: string) => void lines.push(JSON.parse(s)) })
    const seen: number[] = []
    const fragile: Projector = {
      name: 'fragile',
      version: 1,
      tables: ['fragile_rows'],
      schema: 'CREATE TABLE fragile_rows (position bigint PRIMARY KEY)',
      handles: ['Good', 'Bad'],
      async apply(tx, e) {
        if (e.type === 'Bad') throw new Error('cannot apply Bad')
        seen.push(e.position)
        await tx.query('INSERT INTO fragile_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.position])
      },
    }
    const healthy: Projector = {
      name: 'healthy',
      version: 1,
      tables: ['healthy_rows'],
      schema: 'CREATE TABLE healthy_rows (position bigint PRIMARY KEY)',
      handles: ['Good', 'Bad'],
      async apply(tx, e) {
        await tx.query('INSERT INTO healthy_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.position])
      },
    }
    await store.append('s-1', [event('Good')], 'no_stream')
    const bad = await store.append('s-1', [event('Bad')], 0)
    await store.append('s-1', [event('Good')], 1)
    const runner = new ProjectionRunner(db, store, [fragile, healthy], log)
    await runner.start()
    const reached = await runner.waitFor(bad.position + 1, 1500)
    assert.is(reached, false)
    const [status, other] = runner.statuses()
    assert.equal([other.state, other.position], ['running', bad.position + 1])
    assert.is((await db.pool.query('SELECT count(*)::int AS n FROM healthy_rows')).rows[0].n, 3)
    assert.is(status.state, 'failed')
    assert.is(status.error?.position, bad.position)
    assert.is(lines[0]?.position, bad.position)
    assert.is(lines[0]?.projector, 'fragile')
    const rows = await db.pool.query('SELECT position FROM fragile_rows')
    const cp = await db.pool.query("SELECT position FROM projection_checkpoints WHERE name = 'fragile'")
    // The batch with the bad event rolled back whole: nothing after the last good checkpoint.
    assert.ok(cp.rows[0].position < bad.position)
    assert.ok(rows.rows.every((r: any) => r.position <= cp.rows[0].position))
    await runner.stop()
    await store.close()
    await db.close()
  },
)

test('a projector whose outside dependency is down waits and tries again; it catches up when it answers', async () => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  let up = false
  let tries = 0
  const mirror: Projector = {
    name: 'mirror',
    version: 1,
    tables: ['mirror_rows'],
    schema: 'CREATE TABLE mirror_rows (position bigint PRIMARY KEY)',
    handles: ['Good'],
    async apply(tx, e) {
      await tx.query('INSERT INTO mirror_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.position])
      tries++
      if (!up) throw new DependencyUnavailable('Elasticsearch', 'connect ECONNREFUSED')
    },
  }
  const last = await store.append('s-3', [event('Good'), event('Good')], 'no_stream')
  const runner = new ProjectionRunner(db, store, [mirror], silent)
  await runner.start()
  for (let i = 0; i < 100 && runner.statuses()[0].state !== 'waiting'; i++) await new Promise((r) => setTimeout(r, 20))
  const [waiting] = runner.statuses()
  assert.is(waiting.state, 'waiting')
  assert.match(waiting.error!.message, /Elasticsearch is unreachable/)
  assert.ok(Date.parse(waiting.retryAt!) > Date.now() - 1000)
  // Nothing of the batch was kept while it waited.
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM mirror_rows')).rows[0].n, 0)
  const before = tries
  up = true
  assert.ok(await runner.waitFor(last.position, 10_000), 'caught up once the dependency answered')
  assert.ok(tries > before)
  assert.equal([runner.statuses()[0].state, runner.statuses()[0].error], ['running', undefined])
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM mirror_rows')).rows[0].n, 2)
  await runner.stop()
  await store.close()
  await db.close()
})

test('a projector whose version changed is rebuilt from position 0 at start', async () => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  await store.append('s-2', [event('Good'), event('Good')], 'no_stream')
  const p = (version: number): Projector => ({
    name: 'versioned',
    version,
    tables: ['versioned_rows'],
    schema: `CREATE TABLE versioned_rows (position bigint PRIMARY KEY, v int NOT NULL)`,
    handles: ['Good'],
    apply: async (tx, e) =>
      void (await tx.query('INSERT INTO versioned_rows VALUES ($1, $2) ON CONFLICT DO NOTHING', [e.position, version])),
  })
  for (const version of [1, 2]) {
    const runner = new ProjectionRunner(db, store, [p(version)], silent)
    await runner.start()
    assert.ok(await runner.waitFor(await store.headPosition(), 3000))
    await runner.stop()
    const { rows } = await db.pool.query('SELECT DISTINCT v FROM versioned_rows')
    assert.equal(
      rows.map((r: any) => r.v),
      [version],
    )
  }
  await installProjector(db, p(2))
  await store.close()
  await db.close()
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
