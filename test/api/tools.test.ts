import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member; key: string; keyId: string }>(
  'API: tool execution with x-api-key (native:kb_search)',
)
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  const k = ok(
    await ctx.svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: ctx.m.workspaceId, name: 'claude-desktop' },
    }),
    201,
  )
  ctx.key = k.api_key
  ctx.keyId = k.id
  for (let i = 0; i < 25; i++) {
    ok(
      await ctx.svc.call('POST', '/api/v1/knowledge', {
        token: ctx.m.token,
        body: { title: `doc ${i}`, source: 'text', content: `Borborygmus number ${i} rumbles.` },
      }),
      201,
    )
  }
})
test.after(async ({ svc }) => svc.stop())

const execute = (svc: TestService, key: string | undefined, body: unknown, tool = 'native:kb_search') =>
  svc.call('POST', `/api/v1/tools/${encodeURIComponent(tool)}/execute`, {
    body,
    headers: key ? { 'x-api-key': key } : {},
  })

test('kb_search runs with the key’s workspace and its search defaults; the agent is the key’s name', async ({
  svc,
  m,
  key,
  keyId,
}) => {
  const r = ok(await execute(svc, key, { arguments: { query: 'borborygmus rumbles', mode: 'text', minScore: 0 } }))
  assert.is(r.results.length, 5, 'search.defaultLimit of the workspace')
  ok(
    await svc.call('PATCH', '/api/v1/knowledge/config', {
      token: m.token,
      body: { search: { defaultLimit: 3, defaultMode: 'text', minScore: 0 } },
    }),
  )
  const d = ok(await execute(svc, key, { arguments: { query: 'borborygmus' } }))
  assert.is(d.results.length, 3)
  assert.is(d.mode, 'text')
  const events = ok(
    await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=1&settle=true', { token: m.token }),
  ).events
  assert.equal(events[0].actor, { kind: 'agent', client: 'claude-desktop', keyId })
})

test('no key 401 UNAUTHORIZED; unknown or revoked key 401 INVALID_TOKEN; a Bearer token is not a key', async ({
  svc,
  m,
}) => {
  expectError(await execute(svc, undefined, { arguments: { query: 'x' } }), 401, 'UNAUTHORIZED')
  expectError(await execute(svc, 'kbk_nope', { arguments: { query: 'x' } }), 401, 'INVALID_TOKEN')
  expectError(
    await svc.call('POST', '/api/v1/tools/native:kb_search/execute', {
      token: m.token,
      body: { arguments: { query: 'x' } },
    }),
    401,
    'UNAUTHORIZED',
  )
  const k = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: m.workspaceId, name: 'temp' },
    }),
    201,
  )
  ok(await execute(svc, k.api_key, { arguments: { query: 'x' } }))
  ok(await svc.call('DELETE', `/api/v1/admin/api-keys/${k.id}`, { token: ADMIN }))
  expectError(await execute(svc, k.api_key, { arguments: { query: 'x' } }), 401, 'INVALID_TOKEN')
})

test('a key of another workspace searches only its own workspace', async ({ svc }) => {
  const other = await seedMember(svc.call, 'owner')
  const k = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: other.workspaceId, name: 'other-agent' },
    }),
    201,
  )
  const r = ok(await execute(svc, k.api_key, { arguments: { query: 'borborygmus', mode: 'text', minScore: 0 } }))
  assert.equal(r.results, [])
})

test('unknown tool 404; bad arguments 400 naming arguments.<field>; a body without arguments 400', async ({
  svc,
  key,
}) => {
  expectError(await execute(svc, key, { arguments: {} }, 'native:nope'), 404, 'NOT_FOUND')
  const e = expectError(await execute(svc, key, { arguments: { query: '', limit: 99 } }), 400, 'VALIDATION_ERROR')
  assert.equal(e.details, [
    'arguments.query: must be a string of 1-1000 characters',
    'arguments.limit: must be an integer between 1 and 50',
  ])
  expectError(await execute(svc, key, { query: 'x' }), 400, 'VALIDATION_ERROR')
})

test.run()
