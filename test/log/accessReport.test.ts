import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; owner: Member }>(
  'access: members removed, who could read an entry when, and the receipts that served it',
)
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.owner = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const tick = () => new Promise((r) => setTimeout(r, 20))
/** A moment between two steps: the time now, with a tick either side so no event shares its millisecond. */
const moment = async () => {
  await tick()
  const at = new Date().toISOString()
  await tick()
  return at
}

test('a removed member is refused at once; removing again, or in another workspace, is not found', async ({
  svc,
  owner,
}) => {
  const viewer = await seedMember(svc.call, 'viewer', owner.workspaceId)
  ok(await svc.call('GET', '/api/v1/knowledge', { token: viewer.token }))
  const path = `/api/v1/admin/workspaces/${owner.workspaceId}/members/${viewer.userId}`
  const removed = ok(await svc.call('DELETE', path, { token: ADMIN }))
  assert.equal(removed, { workspaceId: owner.workspaceId, userId: viewer.userId, removed: true })
  expectError(await svc.call('GET', '/api/v1/knowledge', { token: viewer.token }), 401, 'INVALID_TOKEN')
  expectError(await svc.call('DELETE', path, { token: ADMIN }), 404, 'NOT_FOUND')
  const other = await seedMember(svc.call, 'owner')
  expectError(
    await svc.call('DELETE', `/api/v1/admin/workspaces/${other.workspaceId}/members/${viewer.userId}`, {
      token: ADMIN,
    }),
    404,
    'NOT_FOUND',
  )
  expectError(await svc.call('DELETE', path, { token: owner.token }), 401, 'INVALID_TOKEN')
  // Added again, with a new token: a member once more.
  ok(
    await svc.call('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: viewer.userId, role: 'viewer' },
    }),
  )
  expectError(await svc.call('GET', '/api/v1/knowledge', { token: viewer.token }), 401, 'INVALID_TOKEN')
  const again = ok(
    await svc.call('POST', '/api/v1/admin/tokens', {
      token: ADMIN,
      body: { userId: viewer.userId, workspaceId: owner.workspaceId },
    }),
    201,
  )
  ok(await svc.call('GET', '/api/v1/knowledge', { token: again.access_token }))
})

test('who could read an entry across a role change and a removal, and each receipt that served it, to whom', async ({
  svc,
}) => {
  const owner = await seedMember(svc.call, 'owner')
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: owner.token, body })
  const before = await moment()
  const entry = ok(
    await call('POST', '/api/v1/knowledge', {
      title: 'Vault codes',
      content: 'The vault opens with the quokka cipher.',
      source: 'text',
    }),
    201,
  )
  const reader = await seedMember(svc.call, 'viewer', owner.workspaceId)
  const key = await newKey(svc.call, owner.workspaceId, 'vault-agent')
  const asked = { query: 'quokka cipher vault', mode: 'text', minScore: 0 }
  const byReader = ok(await svc.call('POST', '/api/v1/knowledge/search', { token: reader.token, body: asked }))
  assert.is(byReader.results[0].id, entry.id)
  const byAgent = ok(await tool(svc.call, key.api_key, 'kb_search', asked))
  assert.is(byAgent.results[0].id, entry.id)
  const whileMember = await moment()
  ok(
    await svc.call('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: reader.userId, role: 'editor' },
    }),
  )
  const afterRoleChange = await moment()

  ok(
    await svc.call('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members/${reader.userId}`, {
      token: ADMIN,
    }),
  )
  ok(await svc.call('DELETE', `/api/v1/admin/api-keys/${key.id}`, { token: ADMIN }))
  const afterRemoval = await moment()
  ok(await call('PATCH', `/api/v1/knowledge/${entry.id}`, { isEnabled: false }))
  const whileDisabled = await moment()
  const disabled = ok(await call('GET', `/api/v1/reports/access/receipts?entryId=${entry.id}&settle=true`))
  assert.equal(
    disabled.revocations.map((r: { type: string }) => r.type),
    ['EntryUpdated'],
  )
  ok(await call('DELETE', `/api/v1/knowledge/${entry.id}`))

  const report = async (at?: string) =>
    ok(
      await call(
        'GET',
        `/api/v1/reports/access?entryId=${entry.id}${at ? `&at=${encodeURIComponent(at)}` : ''}&settle=true`,
      ),
    )
  const then = await report(whileMember)
  assert.equal(
    {
      state: then.entry.state,
      readable: then.entry.readable,
      enabled: then.entry.enabled,
      title: then.entry.title,
    },
    // Deleted since: its history went with its content, so whether searches served it then is not known.
    { state: 'present', readable: true, enabled: null, title: 'Vault codes' },
  )
  assert.equal(
    then.readers.members.map((m: { userId: string; role: string }) => [m.userId, m.role]).sort(),
    [
      [owner.userId, 'owner'],
      [reader.userId, 'viewer'],
    ].sort(),
  )
  assert.equal(
    then.readers.apiKeys.map((k: { keyId: string; name: string }) => [k.keyId, k.name]),
    [[key.id, 'vault-agent']],
  )
  const promoted = await report(afterRoleChange)
  const promotedReader = promoted.readers.members.find((m: { userId: string }) => m.userId === reader.userId)
  assert.is(promotedReader.role, 'editor')
  assert.ok(promotedReader.since > whileMember && promotedReader.since < afterRoleChange)
  assert.ok(
    promotedReader.since > then.readers.members.find((m: { userId: string }) => m.userId === reader.userId).since,
  )
  const removedThen = await report(afterRemoval)
  assert.equal(
    removedThen.readers.members.map((m: { userId: string }) => m.userId),
    [owner.userId],
  )
  assert.equal(removedThen.readers.apiKeys, [])
  assert.is((await report(whileDisabled)).entry.readable, true)
  const now = await report()
  assert.equal(
    [now.entry.state, now.entry.readable, now.entry.reason],
    ['deleted', false, 'the entry had been deleted'],
  )
  assert.equal(now.readers, { members: [], apiKeys: [], grants: [] })
  const earlier = await report(before)
  assert.equal([earlier.entry.state, earlier.entry.readable], ['absent', false])
  assert.match(earlier.entry.reason, /not created yet/)

  const receipts = async (q: string) => ok(await call('GET', `/api/v1/reports/access/receipts?${q}&settle=true`))
  const served = await receipts(`entryId=${entry.id}`)
  assert.equal(
    served.items.map((r: { receiptId: string; actor: unknown }) => [r.receiptId, r.actor]),
    [
      [byReader.receipt.id, { kind: 'human', userId: reader.userId }],
      [byAgent.receipt.id, { kind: 'agent', client: 'vault-agent', keyId: key.id }],
    ],
  )
  assert.equal(served.items[0].served, [{ entryId: entry.id, title: 'Vault codes', rank: 1, version: 1 }])
  assert.equal(
    // A deleted entry's trail is cut to its deletion: its disabling went with its content.
    served.revocations.map((r: { type: string }) => r.type),
    ['EntryDeleted'],
  )
  const toReader = await receipts(`userId=${reader.userId}`)
  assert.equal(
    toReader.items.map((r: { receiptId: string; query: string }) => [r.receiptId, r.query]),
    [[byReader.receipt.id, asked.query]],
  )
  assert.equal(
    toReader.revocations.map((r: { type: string }) => r.type),
    ['MemberRemoved'],
  )
  const toKey = await receipts(`keyId=${key.id}`)
  assert.equal(
    toKey.items.map((r: { receiptId: string }) => r.receiptId),
    [byAgent.receipt.id],
  )
  assert.equal(
    toKey.revocations.map((r: { type: string }) => r.type),
    ['ApiKeyRevoked'],
  )
  // A window that ends before the serves holds none of them; a page of one holds the first.
  assert.equal((await receipts(`entryId=${entry.id}&to=${encodeURIComponent(before)}`)).items, [])
  const first = await receipts(`entryId=${entry.id}&limit=1`)
  assert.equal([first.items.length, first.pagination.total], [1, 2])
  assert.is(first.items[0].receiptId, byReader.receipt.id)
})

test('access reports: for owners and admins, one subject, known ids of this workspace, a window in order', async ({
  svc,
  owner,
}) => {
  const entry = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { title: 'Kept', content: 'Kept here.', source: 'text' },
    }),
    201,
  )
  const get = (path: string, token = owner.token) => svc.call('GET', path, { token })
  const editor = await seedMember(svc.call, 'editor', owner.workspaceId)
  expectError(await get(`/api/v1/reports/access?entryId=${entry.id}`, editor.token), 403, 'FORBIDDEN')
  expectError(await get(`/api/v1/reports/access/receipts?entryId=${entry.id}`, editor.token), 403, 'FORBIDDEN')
  const other = await seedMember(svc.call, 'owner')
  expectError(await get(`/api/v1/reports/access?entryId=${entry.id}`, other.token), 404, 'NOT_FOUND')
  expectError(await get(`/api/v1/reports/access/receipts?entryId=${entry.id}`, other.token), 404, 'NOT_FOUND')
  expectError(await get(`/api/v1/reports/access/receipts?userId=${owner.userId}`, other.token), 404, 'NOT_FOUND')
  expectError(await get('/api/v1/reports/access/receipts?keyId=nope', other.token), 404, 'NOT_FOUND')
  const none = expectError(await get('/api/v1/reports/access/receipts'), 400, 'VALIDATION_ERROR')
  assert.match(none.message, /one subject/)
  expectError(
    await get(`/api/v1/reports/access/receipts?entryId=${entry.id}&userId=${owner.userId}`),
    400,
    'VALIDATION_ERROR',
  )
  const order = expectError(
    await get(`/api/v1/reports/access/receipts?entryId=${entry.id}&from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z`),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(order.details, ['from: a time at or before to'])
  const missing = expectError(await get('/api/v1/reports/access'), 400, 'VALIDATION_ERROR')
  assert.ok(
    missing.details?.some((d) => d.startsWith('entryId')),
    JSON.stringify(missing),
  )
  expectError(await get(`/api/v1/reports/access?entryId=${entry.id}&at=yesterday`), 400, 'VALIDATION_ERROR')
  expectError(await get(`/api/v1/reports/access?entryId=${entry.id}&at=2999-01-01T00:00:00Z`), 400, 'VALIDATION_ERROR')
  const admin = await seedMember(svc.call, 'admin', owner.workspaceId)
  const now = ok(await get(`/api/v1/reports/access?entryId=${entry.id}`, admin.token))
  assert.equal([now.entry.state, now.entry.enabled, now.knowledgeBaseEnabled], ['present', true, true])
  assert.ok(now.readers.members.some((m: { userId: string }) => m.userId === editor.userId))
})

test.run()
