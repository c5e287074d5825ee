import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ADMIN, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API: workspaces and authentication')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

test('validate answers the user, current workspace with role, and token times', async ({ svc }) => {
  const m = await seedMember(svc.call, 'editor')
  const data = ok(await svc.call('POST', '/api/v1/auth/validate', { token: m.token }))
  assert.is(data.valid, true)
  assert.is(data.user.id, m.userId)
  assert.match(data.user.email, /@example.com$/)
  assert.is(data.user.name, 'Test User')
  assert.equal(Object.keys(data.user.current_workspace).sort(), ['id', 'name', 'role'])
  assert.is(data.user.current_workspace.id, m.workspaceId)
  assert.is(data.user.current_workspace.role, 'editor')
  // The workspaces to switch between: here, the one it is a member of.
  assert.equal(data.user.workspaces, [{ id: m.workspaceId, name: data.user.current_workspace.name, role: 'editor' }])
  assert.ok(Date.parse(data.token.expires_at) > Date.parse(data.token.issued_at))
})

test('no Authorization header: 401 UNAUTHORIZED', async ({ svc }) => {
  expectError(await svc.call('POST', '/api/v1/auth/validate'), 401, 'UNAUTHORIZED')
})

test('malformed, unknown, expired and revoked tokens: 401 INVALID_TOKEN', async ({ svc }) => {
  expectError(
    await svc.call('POST', '/api/v1/auth/validate', { headers: { authorization: 'Basic abc' } }),
    401,
    'INVALID_TOKEN',
  )
  expectError(await svc.call('POST', '/api/v1/auth/validate', { token: 'kbt_nothing' }), 401, 'INVALID_TOKEN')
  const m = await seedMember(svc.call)
  // Used first, so its lookup is cached: the revocation must still take effect at once.
  ok(await svc.call('POST', '/api/v1/auth/validate', { token: m.token }))
  ok(await svc.call('DELETE', `/api/v1/admin/tokens/${m.tokenId}`, { token: ADMIN }))
  expectError(await svc.call('POST', '/api/v1/auth/validate', { token: m.token }), 401, 'INVALID_TOKEN')
  // A member demoted after a request: the next request has the new role.
  const d = await seedMember(svc.call, 'owner')
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: d.token, body: { search: { defaultLimit: 7 } } }))
  ok(
    await svc.call('POST', `/api/v1/admin/workspaces/${d.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: d.userId, role: 'viewer' },
    }),
  )
  expectError(
    await svc.call('PATCH', '/api/v1/knowledge/config', { token: d.token, body: { search: { defaultLimit: 8 } } }),
    403,
    'FORBIDDEN',
  )
  // An expired token: issued with the shortest ttl, then moved past its expiry in the read model.
  const e = await seedMember(svc.call)
  await svc.deps.db.pool.query("UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [
    e.tokenId,
  ])
  expectError(await svc.call('POST', '/api/v1/auth/validate', { token: e.token }), 401, 'INVALID_TOKEN')
})

test('tokens are stored only as hashes, in the read model and the event store', async ({ svc }) => {
  const m = await seedMember(svc.call)
  const { rows } = await svc.deps.db.pool.query(
    "SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%' || $1 || '%'",
    [m.token],
  )
  assert.is(rows[0].n, 0)
  const tokens = await svc.deps.db.pool.query('SELECT count(*)::int AS n FROM access_tokens WHERE token_hash = $1', [
    m.token,
  ])
  assert.is(tokens.rows[0].n, 0)
})

test('switch-workspace answers the workspace with permissions and a token scoped to it', async ({ svc }) => {
  const m = await seedMember(svc.call, 'owner')
  const other = await seedMember(svc.call, 'owner')
  ok(
    await svc.call('POST', `/api/v1/admin/workspaces/${other.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: m.userId, role: 'viewer' },
    }),
  )
  const data = ok(
    await svc.call('POST', '/api/v1/auth/switch-workspace', {
      token: m.token,
      body: { workspace_id: other.workspaceId },
    }),
  )
  assert.is(data.workspace.id, other.workspaceId)
  assert.is(data.workspace.role, 'viewer')
  assert.ok(data.workspace.slug)
  assert.ok(data.workspace.name)
  assert.equal(data.workspace.permissions, ['read:knowledge', 'read:tools'])
  const now = ok(await svc.call('POST', '/api/v1/auth/validate', { token: data.access_token }))
  assert.is(now.user.current_workspace.id, other.workspaceId)
  assert.is(now.user.current_workspace.role, 'viewer')
})

test('switch to a workspace the user is not in, or an unknown one: 403 WORKSPACE_ACCESS_DENIED', async ({ svc }) => {
  const m = await seedMember(svc.call)
  const other = await seedMember(svc.call)
  const a = expectError(
    await svc.call('POST', '/api/v1/auth/switch-workspace', {
      token: m.token,
      body: { workspace_id: other.workspaceId },
    }),
    403,
    'WORKSPACE_ACCESS_DENIED',
  )
  const b = expectError(
    await svc.call('POST', '/api/v1/auth/switch-workspace', {
      token: m.token,
      body: { workspace_id: 'no-such-workspace' },
    }),
    403,
    'WORKSPACE_ACCESS_DENIED',
  )
  assert.is(a.message, b.message)
})

test('switch-workspace with a bad body: 400 VALIDATION_ERROR naming the field', async ({ svc }) => {
  const m = await seedMember(svc.call)
  const err = expectError(
    await svc.call('POST', '/api/v1/auth/switch-workspace', { token: m.token, body: { workspace_id: 42 } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(err.details, ['workspace_id: must be an id'])
  const missing = expectError(
    await svc.call('POST', '/api/v1/auth/switch-workspace', { token: m.token, body: {} }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(missing.details, ['workspace_id: is required'])
})

test('audit trail: owners and admins read their workspace only, filtered and paginated; others 403', async ({
  svc,
}) => {
  const owner = await seedMember(svc.call, 'owner')
  const viewer = await seedMember(svc.call, 'viewer', owner.workspaceId)
  const stranger = await seedMember(svc.call, 'owner')
  const all = ok(await svc.call('GET', '/api/v1/audit/events?limit=100', { token: owner.token }))
  assert.ok(all.events.length >= 5)
  assert.ok(all.events.every((e: any) => e.metadata.workspaceId === owner.workspaceId))
  assert.ok(all.events[0].position > all.events[1].position, 'newest first')
  assert.not.ok(JSON.stringify(all).includes(stranger.workspaceId))
  assert.not.ok(JSON.stringify(all).includes('tokenHash'))
  const members = ok(await svc.call('GET', '/api/v1/audit/events?type=MemberAdded', { token: owner.token }))
  assert.is(members.events.length, 2)
  const byStream = ok(
    await svc.call('GET', `/api/v1/audit/events?streamId=${encodeURIComponent(all.events[0].streamId)}`, {
      token: owner.token,
    }),
  )
  assert.ok(byStream.events.length >= 1 && byStream.events.every((e: any) => e.streamId === all.events[0].streamId))
  const forwards = ok(
    await svc.call('GET', `/api/v1/audit/events?after=${all.events[2].position}`, { token: owner.token }),
  )
  assert.equal(
    forwards.events.map((e: any) => e.position),
    [all.events[1].position, all.events[0].position],
  )
  const paged = ok(await svc.call('GET', '/api/v1/audit/events?limit=2&page=2', { token: owner.token }))
  assert.is(paged.events.length, 2)
  assert.equal(paged.pagination, {
    page: 2,
    limit: 2,
    total: all.events.length,
    totalPages: Math.ceil(all.events.length / 2),
    hasNext: all.events.length > 4,
    hasPrev: true,
  })
  expectError(await svc.call('GET', '/api/v1/audit/events', { token: viewer.token }), 403, 'FORBIDDEN')
  expectError(await svc.call('GET', '/api/v1/audit/events?limit=0', { token: owner.token }), 400, 'VALIDATION_ERROR')
})

test.run()
