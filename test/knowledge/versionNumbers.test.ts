import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { upload, waitForTask } from '../helpers/ingestion'
import { ADMIN, type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// Versions start at 1 for every kind of thing a search serves: a text entry (made with its content),
// a file entry (made empty, filled by its task) and a page; results, receipts and their diffs agree.
const test = suite<{ svc: TestService; m: Member }>('API: version numbers start at 1')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const searchOne = async (ctx: { svc: TestService; m: Member }, query: string) =>
  ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query, mode: 'text', minScore: 0, limit: 1 },
    }),
  )

test('a text entry is served as version 1, then 2 after an edit; its receipt says so', async (ctx) => {
  const { svc, m } = ctx
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Echidnas', source: 'text', content: 'Echidnas lay eggs and eat ants.' },
    }),
    201,
  )
  const first = await searchOne(ctx, 'echidnas eggs')
  assert.equal([first.results[0].id, first.results[0].version], [e.id, 1])
  ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: m.token,
      body: { content: 'Echidnas lay eggs and eat termites.' },
    }),
  )
  const second = await searchOne(ctx, 'echidnas eggs')
  assert.is(second.results[0].version, 2)
  const receipt = ok(await svc.call('GET', `/api/v1/receipts/${first.receipt.id}`, { token: m.token }))
  const [r] = receipt.results
  assert.equal([r.status, r.version, r.currentVersion], ['changed', 1, 2])
  assert.match(r.diff, /served \(version 1\)/)
  // The same numbers after the read models are built again from the log.
  ok(await svc.call('POST', '/api/v1/admin/projections/knowledge/rebuild', { token: ADMIN }))
  assert.is((await searchOne(ctx, 'echidnas eggs')).results[0].version, 2)
  const again = ok(await svc.call('GET', `/api/v1/receipts/${first.receipt.id}`, { token: m.token })).results[0]
  assert.equal([again.version, again.currentVersion], [1, 2])
  // Deleted, and its stream cut to the tombstone: the receipt still names version 1, rebuilt or not.
  ok(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token }))
  const gone = async () =>
    ok(await svc.call('GET', `/api/v1/receipts/${first.receipt.id}`, { token: m.token })).results[0]
  assert.equal([(await gone()).status, (await gone()).version], ['deleted', 1])
  ok(await svc.call('POST', '/api/v1/admin/projections/knowledge/rebuild', { token: ADMIN }))
  assert.equal([(await gone()).status, (await gone()).version], ['deleted', 1])
})

test('a file entry is served as version 1 once its task filled it', async (ctx) => {
  const { svc, m } = ctx
  const bytes = Buffer.from('# Platypus\n\nThe platypus hunts with electroreception under water.\n')
  const created = await upload(svc.url, m.token, { source: 'file' }, { bytes, name: 'platypus.md' })
  assert.is(created.status, 201)
  assert.is((await waitForTask(svc.call, m.token, created.body.data.taskId)).status, 'completed')
  const found = await searchOne(ctx, 'platypus electroreception')
  assert.equal([found.results[0].id, found.results[0].version], [created.body.data.id, 1])
  // Its first content came after its creation (and its title from the document): deleted, and its
  // stream cut, the receipt still names version 1, from the tombstone alone once rebuilt.
  const events = ok(
    await svc.call('GET', `/api/v1/audit/events?streamId=entry-${created.body.data.id}`, { token: m.token }),
  )
  assert.ok(events.events.length >= 3, 'created, retitled and filled')
  ok(await svc.call('DELETE', `/api/v1/knowledge/${created.body.data.id}`, { token: m.token }))
  const served = async () =>
    ok(await svc.call('GET', `/api/v1/receipts/${found.receipt.id}`, { token: m.token })).results[0]
  assert.equal([(await served()).status, (await served()).version], ['deleted', 1])
  ok(await svc.call('POST', '/api/v1/admin/projections/knowledge/rebuild', { token: ADMIN }))
  assert.equal([(await served()).status, (await served()).version], ['deleted', 1])
})

test('a page is served as version 1', async ({ svc, m }) => {
  const { api_key: key } = await newKey(svc.call, m.workspaceId, 'scribe')
  ok(await tool(svc.call, key, 'page_write', { title: 'Bandicoots', content: 'Bandicoots dig small conical holes.' }))
  const found = ok(await tool(svc.call, key, 'page_search', { query: 'bandicoots holes', mode: 'text', minScore: 0 }))
  assert.is(found.results[0].version, 1)
})

test.run()
