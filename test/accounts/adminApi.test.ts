import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ADMIN, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API: workspaces and authentication (admin API and API keys)')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

test('admin API needs the admin token; a member token is not one', async ({ svc }) => {
  const m = await seedMember(svc.call)
  expectError(
    await svc.call('POST', '/api/v1/admin/users', { body: { email: 'x@y.zz', name: 'X' } }),
    401,
    'UNAUTHORIZED',
  )
  expectError(
    await svc.call('POST', '/api/v1/admin/users', { token: m.token, body: { email: 'x@y.zz', name: 'X' } }),
    401,
    'INVALID_TOKEN',
  )
})

test('admin API: duplicate email and slug 409 CONFLICT; unknown user or workspace 404; bad role 400', async ({
  svc,
}) => {
  ok(
    await svc.call('POST', '/api/v1/admin/users', { token: ADMIN, body: { email: 'dup@example.com', name: 'A' } }),
    201,
  )
  expectError(
    await svc.call('POST', '/api/v1/admin/users', { token: ADMIN, body: { email: 'DUP@example.com', name: 'B' } }),
    409,
    'CONFLICT',
  )
  ok(await svc.call('POST', '/api/v1/admin/workspaces', { token: ADMIN, body: { name: 'Same', slug: 'same' } }), 201)
  expectError(
    await svc.call('POST', '/api/v1/admin/workspaces', { token: ADMIN, body: { name: 'Same again', slug: 'same' } }),
    409,
    'CONFLICT',
  )
  const m = await seedMember(svc.call)
  expectError(
    await svc.call('POST', `/api/v1/admin/workspaces/nope/members`, {
      token: ADMIN,
      body: { userId: m.userId, role: 'owner' },
    }),
    404,
    'NOT_FOUND',
  )
  expectError(
    await svc.call('POST', `/api/v1/admin/workspaces/${m.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: 'nope', role: 'owner' },
    }),
    404,
    'NOT_FOUND',
  )
  const bad = expectError(
    await svc.call('POST', `/api/v1/admin/workspaces/${m.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: m.userId, role: 'king' },
    }),
    400,
    'VALIDATION_ERROR',
  )
  assert.match(bad.details![0], /^role: must be/)
  expectError(await svc.call('DELETE', '/api/v1/admin/api-keys/nope', { token: ADMIN }), 404, 'NOT_FOUND')
})

test('concurrent registrations of one email: exactly one succeeds', async ({ svc }) => {
  const results = await Promise.all(
    [0, 1, 2, 3].map(() =>
      svc.call('POST', '/api/v1/admin/users', { token: ADMIN, body: { email: 'race@example.com', name: 'R' } }),
    ),
  )
  assert.equal(results.map((r) => r.status).sort(), [201, 409, 409, 409])
})

test('API keys are issued for one workspace, stored only hashed, and revocable', async ({ svc }) => {
  const m = await seedMember(svc.call)
  const key = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: m.workspaceId, name: 'claude-desktop' },
    }),
    201,
  )
  assert.match(key.api_key, /^kbk_/)
  const { rows } = await svc.deps.db.pool.query('SELECT workspace_id, name, key_hash FROM api_keys WHERE id = $1', [
    key.id,
  ])
  assert.is(rows[0].workspace_id, m.workspaceId)
  assert.is.not(rows[0].key_hash, key.api_key)
  ok(await svc.call('DELETE', `/api/v1/admin/api-keys/${key.id}`, { token: ADMIN }))
  const again = await svc.deps.db.pool.query('SELECT revoked_at FROM api_keys WHERE id = $1', [key.id])
  assert.ok(again.rows[0].revoked_at)
})

test('an access token is never an API key, nor a key a token, whichever was used first', async ({ svc }) => {
  const owner = await seedMember(svc.call, 'owner')
  const viewer = await seedMember(svc.call, 'viewer', owner.workspaceId)
  const key = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: owner.workspaceId, name: 'agent' },
    }),
    201,
  )
  const write = (apiKey: string) =>
    svc.call('POST', '/api/v1/tools/native:page_write/execute', {
      headers: { 'x-api-key': apiKey },
      body: { arguments: { title: 'Via a key', mode: 'append', content: 'x' } },
    })
  // Each credential used the right way first (its row is then cached), then the wrong way.
  ok(await svc.call('GET', '/api/v1/pages', { token: viewer.token }))
  expectError(await write(viewer.token), 401, 'INVALID_TOKEN')
  ok(await write(key.api_key))
  expectError(await svc.call('GET', '/api/v1/pages', { token: key.api_key }), 401, 'INVALID_TOKEN')
  expectError(await svc.call('POST', '/api/v1/auth/validate', { token: key.api_key }), 401, 'INVALID_TOKEN')
  assert.is(ok(await svc.call('GET', '/api/v1/pages', { token: viewer.token })).total, 1)
})

test("revoking a token or a key is in its workspace's audit trail", async ({ svc }) => {
  const owner = await seedMember(svc.call, 'owner')
  const key = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: owner.workspaceId, name: 'agent' },
    }),
    201,
  )
  const token = ok(
    await svc.call('POST', '/api/v1/admin/tokens', {
      token: ADMIN,
      body: { userId: owner.userId, workspaceId: owner.workspaceId },
    }),
    201,
  )
  ok(await svc.call('DELETE', `/api/v1/admin/api-keys/${key.id}`, { token: ADMIN }))
  ok(await svc.call('DELETE', `/api/v1/admin/tokens/${token.id}`, { token: ADMIN }))
  for (const type of ['ApiKeyRevoked', 'AccessTokenRevoked']) {
    const listed = ok(await svc.call('GET', `/api/v1/audit/events?type=${type}`, { token: owner.token }))
    assert.is(listed.events.length, 1, type)
  }
})

test.run()
