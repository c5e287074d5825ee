import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runDueSyncs } from '../../workers/knowledge/sync'
import { knowledgeDeps } from '../../api/knowledge/shapes'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'
import { type Site, html, startSite } from '../helpers/site'

const test = suite<{ service: TestService; site: Site; owner: Member }>('API: URL sync')

test.before(async (ctx) => {
  ctx.site = await startSite()
  ctx.service = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true', FETCH_TIMEOUT_MS: '2000' })
  ctx.owner = await seedMember(ctx.service.call)
})
test.after(async ({ service, site }) => (await service.stop(), await site.close()))

const urlEntry = async (service: TestService, m: Member, url: string) => {
  const created = ok(
    await service.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Synced page', source: 'url', url },
    }),
    201,
  )
  assert.is((await waitForTask(service.call, m.token, created.taskId)).status, 'completed')
  return created.id as string
}

/** What the scheduler sees once an entry's interval has passed. */
const makeDue = (service: TestService, id: string) =>
  service.deps.db.pool.query("UPDATE kb_entries SET next_sync_at = now() - interval '1 second' WHERE id = $1", [id])
const tasksOf = async (service: TestService, id: string) =>
  (await service.deps.db.pool.query('SELECT id, status FROM kb_tasks WHERE entry_id = $1 ORDER BY created_at', [id]))
    .rows
const schedule = async (service: TestService) => runDueSyncs(knowledgeDeps(service.deps), service.deps.log)
const settle = async (service: TestService, m: Member, id: string) => {
  for (const t of await tasksOf(service, id)) await waitForTask(service.call, m.token, t.id)
}

test('sync-config: GET shows sourceUrl, PATCH validates and answers without it; entries without a URL refuse', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/cfg', { body: html('Config', '<p>Sync configuration page.</p>') })
  const id = await urlEntry(service, owner, `${site.url}/cfg`)
  const config = ok(await service.call('GET', `/api/v1/knowledge/${id}/sync-config`, { token: owner.token }))
  assert.equal(
    { ...config, lastSyncAt: typeof config.lastSyncAt },
    {
      enabled: false,
      intervalHours: 24,
      lastSyncAt: 'string',
      nextSyncAt: null,
      status: 'idle',
      sourceUrl: `${site.url}/cfg`,
    },
  )
  const patched = ok(
    await service.call('PATCH', `/api/v1/knowledge/${id}/sync-config`, {
      token: owner.token,
      body: { enabled: true, intervalHours: 6 },
    }),
  )
  assert.is(patched.enabled, true)
  assert.is(patched.intervalHours, 6)
  assert.is(patched.sourceUrl, undefined)
  assert.is(new Date(patched.nextSyncAt).getTime() - new Date(patched.lastSyncAt).getTime(), 6 * 3600_000)
  // A number of hours: fractions too.
  const half = ok(
    await service.call('PATCH', `/api/v1/knowledge/${id}/sync-config`, {
      token: owner.token,
      body: { enabled: true, intervalHours: 1.5 },
    }),
  )
  assert.is(half.intervalHours, 1.5)
  assert.is(new Date(half.nextSyncAt).getTime() - new Date(half.lastSyncAt).getTime(), 1.5 * 3600_000)
  assert.is(
    ok(await service.call('GET', `/api/v1/knowledge/${id}/sync-config`, { token: owner.token })).intervalHours,
    1.5,
  )
  for (const body of [
    { intervalHours: 5 },
    { enabled: true, intervalHours: 0 },
    { enabled: true, intervalHours: 0.5 },
    { enabled: true, intervalHours: 721 },
    { enabled: true, intervalHours: '2' },
    { enabled: 'yes' },
  ]) {
    expectError(
      await service.call('PATCH', `/api/v1/knowledge/${id}/sync-config`, { token: owner.token, body }),
      400,
      'VALIDATION_ERROR',
    )
  }
  const text = ok(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { title: 'plain', source: 'text', content: 'no url here' },
    }),
    201,
  )
  expectError(
    await service.call('POST', `/api/v1/knowledge/${text.id}/sync`, { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('GET', `/api/v1/knowledge/${text.id}/sync-config`, { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('PATCH', `/api/v1/knowledge/${text.id}/sync-config`, {
      token: owner.token,
      body: { enabled: true },
    }),
    400,
    'VALIDATION_ERROR',
  )
  const stranger = await seedMember(service.call)
  expectError(
    await service.call('GET', `/api/v1/knowledge/${id}/sync-config`, { token: stranger.token }),
    404,
    'NOT_FOUND',
  )
  expectError(await service.call('POST', `/api/v1/knowledge/${id}/sync`, { token: stranger.token }), 404, 'NOT_FOUND')
})

test(
  'a manual sync always reprocesses; a second one while the first is pending answers unchanged and queues ' + 'nothing',
  async ({ service, site, owner }) => {
    site.pages.set('/manual', { body: html('Manual', '<p>Version one of the manual page.</p>'), delayMs: 300 })
    const id = await urlEntry(service, owner, `${site.url}/manual`)
    const first = ok(await service.call('POST', `/api/v1/knowledge/${id}/sync`, { token: owner.token }), 202)
    assert.is(first.status, 'pending')
    const second = ok(await service.call('POST', `/api/v1/knowledge/${id}/sync`, { token: owner.token }))
    assert.is(second.status, 'unchanged')
    assert.type(second.message, 'string')
    const done = await waitForTask(service.call, owner.token, first.taskId)
    assert.is(done.status, 'completed')
    assert.ok(done.result.chunkCount >= 1, 'reprocessed although the page did not change')
    assert.is((await tasksOf(service, id)).length, 2)
  },
)

test('an entry whose first fetch failed is completed by a sync that succeeds', async ({ service, site, owner }) => {
  const created = ok(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { title: 'Late page', source: 'url', url: `${site.url}/late` },
    }),
    201,
  )
  assert.is((await waitForTask(service.call, owner.token, created.taskId)).status, 'failed')
  assert.is(
    ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token })).processingStatus,
    'failed',
  )
  site.pages.set('/late', { body: html('Late', '<p>Tapirs are odd-toed ungulates.</p>') })
  const sync = ok(await service.call('POST', `/api/v1/knowledge/${created.id}/sync`, { token: owner.token }), 202)
  assert.is((await waitForTask(service.call, owner.token, sync.taskId)).status, 'completed')
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.equal([entry.processingStatus, entry.processingProgress, entry.taskId], ['completed', 100, sync.taskId])
  assert.match(entry.content, 'odd-toed ungulates')
})

test(
  'scheduled sync: unchanged content only moves the dates; changed content replaces the chunks; a failing ' +
    'URL sets failed and retries later',
  async ({ service, site, owner }) => {
    let version = 'The first edition mentions capybaras.'
    site.pages.set('/news', () => ({ body: html('News', `<p>${version}</p>`) }))
    const id = await urlEntry(service, owner, `${site.url}/news`)
    ok(
      await service.call('PATCH', `/api/v1/knowledge/${id}/sync-config`, {
        token: owner.token,
        body: { enabled: true, intervalHours: 1 },
      }),
    )
    const before = ok(await service.call('GET', `/api/v1/knowledge/${id}`, { token: owner.token }))

    await makeDue(service, id)
    assert.is(await schedule(service), 1)
    assert.is(await schedule(service), 0, 'one sync at a time')
    await settle(service, owner, id)
    const unchanged = ok(await service.call('GET', `/api/v1/knowledge/${id}`, { token: owner.token }))
    assert.is(unchanged.content, before.content)
    assert.is(unchanged.updatedAt, before.updatedAt)
    assert.ok(unchanged.syncConfig.lastSyncAt > before.syncConfig.lastSyncAt)
    assert.is(unchanged.syncConfig.status, 'idle')
    assert.is(
      new Date(unchanged.syncConfig.nextSyncAt).getTime() - new Date(unchanged.syncConfig.lastSyncAt).getTime(),
      3600_000,
    )

    version = 'The second edition is about tapirs instead.'
    await makeDue(service, id)
    assert.is(await schedule(service), 1)
    await settle(service, owner, id)
    const changed = ok(await service.call('GET', `/api/v1/knowledge/${id}`, { token: owner.token }))
    assert.match(changed.content, 'tapirs')
    const chunks = await service.deps.db.pool.query<{ content: string }>(
      'SELECT content FROM kb_chunks WHERE entry_id = $1',
      [id],
    )
    assert.ok(chunks.rows.length >= 1)
    assert.ok(
      chunks.rows.every((c) => !c.content.includes('capybaras')),
      'old chunks replaced',
    )

    site.pages.set('/news', { status: 503, body: 'down' })
    await makeDue(service, id)
    assert.is(await schedule(service), 1)
    await settle(service, owner, id)
    const failed = ok(await service.call('GET', `/api/v1/knowledge/${id}/sync-config`, { token: owner.token }))
    assert.is(failed.status, 'failed')
    assert.match(failed.error, 'HTTP 503')
    assert.ok(new Date(failed.nextSyncAt).getTime() > Date.now() + 3500_000, 'retried at the next interval')
    const entry = ok(await service.call('GET', `/api/v1/knowledge/${id}`, { token: owner.token }))
    assert.match(entry.content, 'tapirs', 'a failed sync keeps the content')
    assert.is(entry.processingStatus, 'completed')
  },
)

test.run()
