import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ service: TestService; owner: Member; key: string }>(
  'API: errors that say what to do (an API key on a Bearer route, malformed JSON)',
)

test.before(async (ctx) => {
  ctx.service = await startTestService()
  ctx.owner = await seedMember(ctx.service.call)
  ctx.key = ok(
    await ctx.service.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: ctx.owner.workspaceId, name: 'my-agent' },
    }),
    201,
  ).api_key
})
test.after(async ({ service }) => service.stop())

const saysKeysAreForTools = (message: string) => {
  assert.match(message, 'API keys are for the tools endpoint')
  assert.match(message, 'MCP')
  assert.match(message, 'access token')
}

test('an API key in x-api-key on a Bearer route: UNAUTHORIZED, saying keys are for tools and MCP', async ({
  service,
  key,
}) => {
  const e = expectError(
    await service.call('GET', '/api/v1/knowledge', { headers: { 'x-api-key': key } }),
    401,
    'UNAUTHORIZED',
  )
  saysKeysAreForTools(e.message)
  // With no credentials at all, the message stays about the missing header.
  const none = expectError(await service.call('GET', '/api/v1/knowledge'), 401, 'UNAUTHORIZED')
  assert.is(none.message, 'missing Authorization header (Bearer token)')
})

test('an API key as a Bearer token: INVALID_TOKEN, saying keys are for tools and MCP', async ({ service, key }) => {
  const e = expectError(await service.call('GET', '/api/v1/knowledge', { token: key }), 401, 'INVALID_TOKEN')
  saysKeysAreForTools(e.message)
  // The same key is taken where keys belong.
  ok(
    await service.call('POST', '/api/v1/tools/native:kb_search/execute', {
      headers: { 'x-api-key': key },
      body: { arguments: { query: 'anything' } },
    }),
  )
})

test("malformed JSON: VALIDATION_ERROR whose detail is the parser's description of the error", async ({
  service,
  owner,
}) => {
  const send = (raw: string) => service.call('POST', '/api/v1/knowledge', { token: owner.token, raw })
  const comma = expectError(await send('{"title": "x",}'), 400, 'VALIDATION_ERROR')
  assert.is(comma.message, 'the request body is not valid JSON')
  // V8's words (Node 22 adds the line and column).
  assert.match(comma.details![0], /^\(body\): Expected double-quoted property name in JSON at position 14/)
  const brace = expectError(await send('{"title": }'), 400, 'VALIDATION_ERROR')
  assert.match(brace.details![0], /^\(body\): Unexpected token '}'/)
  const cut = expectError(await send('{"title": "x'), 400, 'VALIDATION_ERROR')
  assert.match(cut.details![0], /^\(body\): Unterminated string in JSON at position \d+/)
  const word = expectError(await send('hello'), 400, 'VALIDATION_ERROR')
  assert.match(word.details![0], /^\(body\): Unexpected token 'h'/)
  // Valid JSON that is not an object is still told so.
  const string = expectError(await send('"just a string"'), 400, 'VALIDATION_ERROR')
  assert.equal(string.details, ['(body): must be a JSON object'])
})

test.run()
