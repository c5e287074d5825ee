import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey } from '../helpers/agents'
import { MemoryOAuthClient } from '../helpers/oauthClient'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; owner: Member }>(
  'MCP over OAuth 2.1: discovery, registration, a person grants, PKCE, refresh, revocation',
)
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.owner = await seedMember(ctx.svc.call, 'owner')
  ok(
    await ctx.svc.call('POST', '/api/v1/knowledge', {
      token: ctx.owner.token,
      body: { title: 'Quokkas', content: 'Quokkas live on Rottnest Island.', source: 'text' },
    }),
    201,
  )
})
test.after(async ({ svc }) => svc.stop())

const REDIRECT = 'http://127.0.0.1:9/callback'

/** What /mcp answers an access token (200 with a tool list, 401 once the grant is gone). */
const mcpStatus = async (svc: TestService, accessToken: string) =>
  (
    await fetch(`${svc.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'probe', version: '1' } },
      }),
    })
  ).status

/** A form POSTed to the token endpoint, and its JSON answer. */
const tokenRequest = async (svc: TestService, form: Record<string, string>) => {
  const r = await fetch(`${svc.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  })
  return { status: r.status, body: await r.json() }
}

/** The person's part, as the console does it: the request the client sent, granted (or refused) with their token. */
const consent = async (
  svc: TestService,
  person: Member,
  authorization: URL,
  decision: { approve: boolean; scopes?: string[]; workspaceId?: string } = { approve: true },
) => {
  const sent = await fetch(authorization, { redirect: 'manual' })
  assert.is(sent.status, 302)
  const console = new URL(sent.headers.get('location')!)
  assert.is(console.hash, '#/authorize')
  const request = Object.fromEntries(console.searchParams)
  const view = ok(await svc.call('GET', `/api/v1/oauth/authorize?${console.searchParams}`, { token: person.token }))
  const answer = await svc.call('POST', '/api/v1/oauth/grants', {
    token: person.token,
    body: { request, ...decision },
  })
  return { view, answer, request }
}

/** A client signed in through OAuth: the SDK's flow, the person's consent, then a connected client. */
const signedIn = async (
  svc: TestService,
  person: Member,
  decision?: { approve: boolean; scopes?: string[] },
  name = 'remote-agent',
) => {
  const provider = new MemoryOAuthClient(REDIRECT, name)
  const url = new URL(`${svc.url}/mcp`)
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider })
  const refused = await new Client({ name, version: '1' }).connect(first).then(
    () => undefined,
    (e) => e,
  )
  assert.instance(refused, UnauthorizedError)
  const { answer, view } = await consent(svc, person, provider.authorizations.at(-1)!, decision)
  const back = new URL(ok(answer).redirectTo)
  assert.is(back.searchParams.get('state'), 'state-123')
  assert.is(back.searchParams.get('iss'), svc.url)
  await first.finishAuth(back.searchParams.get('code')!)
  const client = new Client({ name, version: '1' })
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
  return { client, provider, view, grantId: ok(answer).grantId as string }
}

test('metadata for discovery, and a 401 from /mcp that points to it', async ({ svc }) => {
  const resource = await (await fetch(`${svc.url}/.well-known/oauth-protected-resource/mcp`)).json()
  assert.equal(resource.resource, `${svc.url}/mcp`)
  assert.equal(resource.authorization_servers, [svc.url])
  const server = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json()
  assert.is(server.issuer, svc.url)
  assert.equal(server.code_challenge_methods_supported, ['S256'])
  assert.is(server.registration_endpoint, `${svc.url}/oauth/register`)
  const refused = await fetch(`${svc.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' } })
  assert.is(refused.status, 401)
  assert.is(
    refused.headers.get('www-authenticate'),
    `Bearer resource_metadata="${svc.url}/.well-known/oauth-protected-resource/mcp"`,
  )
})

test('the SDK client signs in: a person grants read and write in the console, tools run as the grant', async ({
  svc,
  owner,
}) => {
  const { client, provider, view, grantId } = await signedIn(svc, owner)
  assert.equal(view.scopes, ['kb:read', 'kb:write'])
  assert.is(view.client.name, 'remote-agent')
  const found = await client.callTool({ name: 'kb_search', arguments: { query: 'quokkas island', minScore: 0 } })
  assert.is((found.structuredContent as { results: { title: string }[] }).results[0].title, 'Quokkas')
  const wrote = await client.callTool({ name: 'page_write', arguments: { title: 'OAuth notes', content: 'Hello.' } })
  assert.not.ok(wrote.isError, JSON.stringify(wrote.content))
  // The access reports see the grant: a reader of the entry, its serves by key, and among what its person was served.
  const entryId = (found.structuredContent as { results: { id: string }[] }).results[0].id
  const report = (q: string) => svc.call('GET', `/api/v1/reports/${q}&settle=true`, { token: owner.token })
  const readers = ok(await report(`access?entryId=${entryId}`)).readers
  assert.equal(
    readers.grants.map((g: { grantId: string; clientName: string }) => [g.grantId, g.clientName]),
    [[grantId, 'remote-agent']],
  )
  for (const subject of [`keyId=${grantId}`, `userId=${owner.userId}`]) {
    const served = ok(await report(`access/receipts?${subject}`)).items
    assert.equal(
      served.map((r: { actor: unknown }) => r.actor),
      [{ kind: 'agent', client: 'remote-agent', keyId: grantId }],
      subject,
    )
  }
  // The grant is listed; its writes carry the client's name and the grant as their key.
  const grants = ok(await svc.call('GET', '/api/v1/oauth/grants', { token: owner.token })).items
  assert.equal(
    grants.map((g: { id: string; status: string; scopes: string[] }) => [g.id, g.status, g.scopes]),
    [[grantId, 'active', ['kb:read', 'kb:write']]],
  )
  const events = ok(
    await svc.call('GET', '/api/v1/audit/events?type=PageCreated&limit=1', { token: owner.token }),
  ).events
  assert.equal(events[0].actor, { kind: 'agent', client: 'remote-agent', keyId: grantId })
  // A refresh rotates: the new tokens work, the old refresh token does not.
  const before = provider.saved!
  const refresh = () =>
    fetch(`${svc.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: before.refresh_token!,
        client_id: provider.info!.client_id,
      }),
    })
  const refreshed = await refresh()
  assert.is(refreshed.status, 200)
  const again = await refresh()
  assert.is(again.status, 400)
  assert.is((await again.json()).error, 'invalid_grant')
  // Revoked in the console: the next call is refused at once.
  ok(await svc.call('DELETE', `/api/v1/oauth/grants/${grantId}`, { token: owner.token }))
  assert.equal(
    ok(await report(`access/receipts?keyId=${grantId}`)).revocations.map((r: { type: string }) => r.type),
    ['OAuthGrantRevoked'],
  )
  const after = await fetch(`${svc.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${(await refreshed.json()).access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  assert.is(after.status, 401)
  assert.match(after.headers.get('www-authenticate') ?? '', /error="invalid_token"/)
  await client.close()
})

test('a read-only grant cannot write; a viewer cannot grant writing; a removed member’s grant stops', async ({
  svc,
  owner,
}) => {
  const reader = await signedIn(svc, owner, { approve: true, scopes: ['kb:read'] }, 'reader-agent')
  const names = (await reader.client.listTools()).tools.map((t) => t.name).sort()
  assert.equal(names, [
    'kb_compare',
    'kb_get_entry',
    'kb_proposal_status',
    'kb_search',
    'page_history',
    'page_read',
    'page_search',
  ])
  const write = await reader.client.callTool({ name: 'page_write', arguments: { title: 'No', content: 'No.' } })
  assert.ok(write.isError)
  assert.match(JSON.stringify(write.content), /no tool named page_write/)
  await reader.client.close()

  const viewer = await seedMember(svc.call, 'viewer', owner.workspaceId)
  const provider = new MemoryOAuthClient(REDIRECT, 'viewer-agent')
  await new Client({ name: 'v', version: '1' })
    .connect(new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider }))
    .catch(() => undefined)
  const asked = await consent(svc, viewer, provider.authorizations[0], {
    approve: true,
    scopes: ['kb:read', 'kb:write'],
  })
  expectError(asked.answer, 400, 'VALIDATION_ERROR')
  const granted = await consent(svc, viewer, provider.authorizations[0], { approve: true, scopes: ['kb:read'] })
  const code = new URL(ok(granted.answer).redirectTo).searchParams.get('code')!
  const transport = new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp`), { authProvider: provider })
  await transport.finishAuth(code)
  ok(
    await svc.call('DELETE', `/api/v1/admin/workspaces/${owner.workspaceId}/members/${viewer.userId}`, {
      token: ADMIN,
    }),
  )
  assert.is(await mcpStatus(svc, provider.saved!.access_token), 401)
  // Added again, the person's old grant stays ended: neither its token nor its refresh token works.
  ok(
    await svc.call('POST', `/api/v1/admin/workspaces/${owner.workspaceId}/members`, {
      token: ADMIN,
      body: { userId: viewer.userId, role: 'viewer' },
    }),
  )
  assert.is(await mcpStatus(svc, provider.saved!.access_token), 401)
  const refreshed = await tokenRequest(svc, {
    grant_type: 'refresh_token',
    refresh_token: provider.saved!.refresh_token!,
    client_id: provider.info!.client_id,
  })
  assert.equal([refreshed.status, refreshed.body.error], [400, 'invalid_grant'])
})

test('refusals: bad registrations, untrusted redirects, PKCE, a code used twice, a denial', async ({ svc, owner }) => {
  const register = (body: object) =>
    fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  for (const uri of [
    'http://evil.example/cb',
    'javascript:alert(1)',
    'https://app.example/cb#frag',
    'mailto:someone@example.com',
    'ws://127.0.0.1/cb',
  ]) {
    const r = await register({ client_name: 'x', redirect_uris: [uri] })
    assert.is(r.status, 400, uri)
    assert.is((await r.json()).error, 'invalid_redirect_uri')
  }
  assert.is((await (await register({ client_name: 'x' })).json()).error, 'invalid_client_metadata')
  const nul = await register({ client_name: 'x\u0000y', redirect_uris: [REDIRECT] })
  assert.equal([nul.status, (await nul.json()).error], [400, 'invalid_client_metadata'])
  // An app's own scheme is a redirect; the name loses what a person could not read, and fits in 200 characters.
  const app = await register({
    client_name: `\u202eCursor\u0007 ${'x'.repeat(191)}😀😀`,
    redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/callback'],
  })
  assert.is(app.status, 201)
  const appName = (await app.json()).client_name
  assert.is([...appName].length, 200)
  assert.ok(appName.startsWith('Cursor x') && !/[\u202e\u0007]/.test(appName), appName)
  const registered = await (await register({ client_name: 'cli', redirect_uris: [REDIRECT] })).json()
  const authorize = (params: Record<string, string>) =>
    fetch(`${svc.url}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' })
  const base = {
    client_id: registered.client_id,
    redirect_uri: REDIRECT,
    response_type: 'code',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    state: 's1',
  }
  // An unknown client or a redirect it did not register: nobody is sent anywhere.
  assert.is((await authorize({ ...base, client_id: 'nope' })).status, 400)
  assert.is((await authorize({ ...base, redirect_uri: 'https://evil.example/cb' })).status, 400)
  assert.is((await authorize({ ...base, client_id: 'x\u0000' })).status, 400)
  const twiceScope = await fetch(`${svc.url}/oauth/authorize?${new URLSearchParams(base)}&scope=a&scope=b`, {
    redirect: 'manual',
  })
  assert.equal([twiceScope.status, (await twiceScope.json()).error_description], [400, 'scope: given more than once'])
  // Other faults go back to a client on the loopback interface with OAuth's error.
  const noPkce = await authorize({ ...base, code_challenge_method: 'plain' })
  assert.is(new URL(noPkce.headers.get('location')!).searchParams.get('error'), 'invalid_request')
  const otherResource = await authorize({ ...base, resource: 'https://elsewhere.example/mcp' })
  assert.is(new URL(otherResource.headers.get('location')!).searchParams.get('error'), 'invalid_target')
  // Anyone may register a client: one elsewhere is not sent its errors by itself (no open redirect).
  const remote = await (await register({ client_name: 'web', redirect_uris: ['https://app.example/cb'] })).json()
  const remoteFault = await authorize({
    ...base,
    client_id: remote.client_id,
    redirect_uri: 'https://app.example/cb',
    response_type: 'token',
  })
  assert.equal([remoteFault.status, remoteFault.headers.get('location')], [400, null])
  // Scopes it does not know are left out: the request goes on to the console.
  const otherScopes = await authorize({ ...base, scope: 'openid kb:read offline_access' })
  assert.match(otherScopes.headers.get('location')!, /#\/authorize$/)

  const denied = ok(
    await svc.call('POST', '/api/v1/oauth/grants', { token: owner.token, body: { request: base, approve: false } }),
  )
  const refusal = new URL(denied.redirectTo)
  assert.equal([refusal.searchParams.get('error'), refusal.searchParams.get('state')], ['access_denied', 's1'])

  const granted = ok(
    await svc.call('POST', '/api/v1/oauth/grants', { token: owner.token, body: { request: base, approve: true } }),
  )
  const code = new URL(granted.redirectTo).searchParams.get('code')!
  const exchange = (verifier: string) =>
    fetch(`${svc.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: registered.client_id,
      }),
    })
  const wrong = await exchange('x'.repeat(43))
  assert.is(wrong.status, 400)
  assert.match((await wrong.json()).error_description, /code_verifier/)
  // RFC 7636's example: this verifier answers the challenge above.
  const right = await exchange('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')
  assert.is(right.status, 200)
  const tokens = await right.json()
  assert.equal([tokens.token_type, tokens.scope, tokens.expires_in], ['Bearer', 'kb:read kb:write', 3600])
  assert.is(await mcpStatus(svc, tokens.access_token), 200)
  // The refresh token rotates; the replaced one presented again ends the grant: the new tokens stop too.
  const refresh = (token: string) =>
    tokenRequest(svc, { grant_type: 'refresh_token', refresh_token: token, client_id: registered.client_id })
  const rotated = await refresh(tokens.refresh_token)
  assert.is(rotated.status, 200)
  assert.is(await mcpStatus(svc, rotated.body.access_token), 200)
  const replayed = await refresh(tokens.refresh_token)
  assert.equal([replayed.status, replayed.body.error], [400, 'invalid_grant'])
  assert.match(replayed.body.error_description, /used again/)
  assert.is(await mcpStatus(svc, rotated.body.access_token), 401)
  assert.is((await refresh(rotated.body.refresh_token)).body.error, 'invalid_grant')
  const twice = await exchange('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')
  assert.is((await twice.json()).error, 'invalid_grant')
  // A code used twice ends its grant as well, and a request naming no redirect_uri needs none at the token.
  const quiet = { ...base } as Record<string, string>
  delete quiet.redirect_uri
  const second = ok(
    await svc.call('POST', '/api/v1/oauth/grants', { token: owner.token, body: { request: quiet, approve: true } }),
  )
  const secondCode = new URL(second.redirectTo).searchParams.get('code')!
  const redeem = () =>
    tokenRequest(svc, {
      grant_type: 'authorization_code',
      code: secondCode,
      code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
      client_id: registered.client_id,
    })
  const first = await redeem()
  assert.is(first.status, 200)
  assert.is((await redeem()).body.error, 'invalid_grant')
  assert.is(await mcpStatus(svc, first.body.access_token), 401)
  const wrongType = await fetch(`${svc.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: registered.client_id }),
  })
  assert.is((await wrongType.json()).error, 'unsupported_grant_type')
})

test('grants and API keys in the console: members see and revoke their own, managers every one', async ({ svc }) => {
  const owner = await seedMember(svc.call, 'owner')
  const editor = await seedMember(svc.call, 'editor', owner.workspaceId)
  const mine = await signedIn(svc, editor, { approve: true }, 'editor-agent')
  await mine.client.close()
  const theirs = await signedIn(svc, owner, { approve: true }, 'owner-agent')
  await theirs.client.close()
  const list = async (m: Member) =>
    ok(await svc.call('GET', '/api/v1/oauth/grants', { token: m.token })).items.map(
      (g: { clientName: string; userId: string }) => [g.clientName, g.userId],
    )
  assert.equal(await list(editor), [['editor-agent', editor.userId]])
  assert.equal((await list(owner)).length, 2)
  expectError(
    await svc.call('DELETE', `/api/v1/oauth/grants/${theirs.grantId}`, { token: editor.token }),
    404,
    'NOT_FOUND',
  )
  ok(await svc.call('DELETE', `/api/v1/oauth/grants/${mine.grantId}`, { token: editor.token }))
  // Audit shows the grant's events without its secrets.
  const approved = ok(
    await svc.call('GET', '/api/v1/audit/events?type=OAuthGrantApproved&limit=1', { token: owner.token }),
  ).events[0]
  assert.not.ok('codeHash' in approved.data, JSON.stringify(approved.data))
  assert.is(approved.data.clientName, 'owner-agent')

  const key = await newKey(svc.call, owner.workspaceId, 'ci-bot')
  expectError(await svc.call('GET', '/api/v1/api-keys', { token: editor.token }), 403, 'FORBIDDEN')
  const keys = ok(await svc.call('GET', '/api/v1/api-keys', { token: owner.token })).items
  assert.equal(
    keys.map((k: { id: string; name: string; status: string }) => [k.id, k.name, k.status]),
    [[key.id, 'ci-bot', 'active']],
  )
  const other = await seedMember(svc.call, 'owner')
  expectError(await svc.call('DELETE', `/api/v1/api-keys/${key.id}`, { token: other.token }), 404, 'NOT_FOUND')
  ok(await svc.call('DELETE', `/api/v1/api-keys/${key.id}`, { token: owner.token }))
  const refused = await svc.call('POST', '/api/v1/tools/native:kb_search/execute', {
    headers: { 'x-api-key': key.api_key },
    body: { arguments: { query: 'x' } },
  })
  expectError(refused, 401, 'INVALID_TOKEN')
})

test.run()
