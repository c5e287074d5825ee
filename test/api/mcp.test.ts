import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey } from '../helpers/agents'
import { ADMIN, type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member; key: string; clients: Client[] }>(
  'MCP: /mcp with the SDK client over Streamable HTTP',
)
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'rest-key-name')).api_key
  ctx.clients = []
})
test.after(async ({ svc, clients }) => {
  await Promise.all(clients.map((c) => c.close()))
  await svc.stop()
})

const connect = async (ctx: { svc: TestService; clients: Client[] }, key: string | undefined, name: string) => {
  const client = new Client({ name, version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${ctx.svc.url}/mcp`), {
    requestInit: { headers: key ? { 'x-api-key': key } : {} },
  })
  await client.connect(transport)
  ctx.clients.push(client)
  return { client, transport }
}

test('tools and the five skills as prompts are listed', async (ctx) => {
  const { client } = await connect(ctx, ctx.key, 'cursor')
  const names = (await client.listTools()).tools.map((t) => t.name).sort()
  assert.equal(names, [
    'kb_compare',
    'kb_get_entry',
    'kb_proposal_status',
    'kb_search',
    'page_delete',
    'page_history',
    'page_read',
    'page_revert',
    'page_search',
    'page_write',
  ])
  const prompts = (await client.listPrompts()).prompts.map((p) => p.name).sort()
  assert.equal(prompts, ['brain-first', 'decision-log', 'docs-as-you-go', 'meeting-notes', 'session-recall'])
  const p = await client.getPrompt({
    name: 'brain-first',
    arguments: { question: 'How do we rotate the signing keys?' },
  })
  const text = (p.messages[0].content as { text: string }).text
  assert.match(text, /How do we rotate the signing keys\?/)
  assert.match(text, /page_search/)
  // Each skill's arguments are used; a missing required one or an unknown skill is invalid params (-32602).
  const recall = await client.getPrompt({ name: 'session-recall', arguments: { project: 'Project Orca' } })
  assert.match((recall.messages[0].content as { text: string }).text, 'starting on Project Orca')
  // Prompt arguments are strings (MCP's schema): a number is invalid params too, not an internal error.
  for (const [name, args] of [
    ['brain-first', {}],
    ['decision-log', { log: 'Decisions' }],
    ['meeting-notes', { meeting: '  ' }],
    ['no-such-skill', {}],
    ['brain-first', { question: 42 }],
  ] as const) {
    try {
      await client.getPrompt({ name, arguments: args as Record<string, string> })
      assert.unreachable(`${name} answered`)
    } catch (error) {
      assert.is((error as { code?: number }).code, -32602, `${name}: ${String(error)}`)
      if ('question' in args && typeof args.question === 'number')
        assert.match(String(error), 'params.arguments.question')
    }
  }
})

test(
  'a write is authored by the initialize client name (never the arguments, never the key name); read back ' +
    'as that client',
  async (ctx) => {
    const { client } = await connect(ctx, ctx.key, 'claude-desktop')
    const w = await client.callTool({
      name: 'page_write',
      arguments: {
        title: 'MCP notes',
        content: 'Written over MCP.',
        skill: 'docs-as-you-go',
        author: { kind: 'human', userId: 'u', name: 'Boss' },
        client: 'spoofed',
      },
    })
    assert.not.ok(w.isError, JSON.stringify(w.content))
    const written = w.structuredContent as { pageId: string; version: number; receipt: string }
    assert.is(written.version, 1)
    assert.match(written.receipt, /MCP notes/)
    const versions = ok(
      await ctx.svc.call('GET', `/api/v1/pages/${written.pageId}/versions`, { token: ctx.m.token }),
    ).versions
    assert.equal(versions[0].author, { kind: 'agent', client: 'claude-desktop', skill: 'docs-as-you-go' })
    const read = await client.callTool({ name: 'page_read', arguments: { title: 'mcp NOTES' } })
    assert.equal((read.structuredContent as any).citation, 'MCP notes · v1')
    const history = await client.callTool({ name: 'page_history', arguments: { pageId: written.pageId } })
    assert.is((history.structuredContent as any).versions.length, 1)
    assert.equal((history.structuredContent as any).versions[0].author, {
      kind: 'agent',
      client: 'claude-desktop',
      skill: 'docs-as-you-go',
    })
    // A second session of another client appends under its own name.
    const other = await connect(ctx, ctx.key, 'windsurf')
    const w2 = await other.client.callTool({
      name: 'page_write',
      arguments: { pageId: written.pageId, mode: 'append', content: 'More.' },
    })
    assert.is((w2.structuredContent as any).version, 2)
    const after = ok(
      await ctx.svc.call('GET', `/api/v1/pages/${written.pageId}/versions`, { token: ctx.m.token }),
    ).versions
    assert.equal(
      after.map((v: any) => v.author.client),
      ['windsurf', 'claude-desktop'],
    )
  },
)

test('a tool’s expected failure is an error result with the code; bad arguments name the field', async (ctx) => {
  const { client } = await connect(ctx, ctx.key, 'cursor')
  const missing = await client.callTool({ name: 'page_read', arguments: { pageId: 'nope' } })
  assert.ok(missing.isError)
  assert.match((missing.content as any)[0].text, /NOT_FOUND/)
  const bad = await client.callTool({ name: 'page_write', arguments: { title: 'x', content: 'y', skill: 'nope' } })
  assert.ok(bad.isError)
  assert.match((bad.content as any)[0].text, /arguments\.skill/)
  const found = await client.callTool({ name: 'kb_search', arguments: { query: 'anything', mode: 'text' } })
  assert.not.ok(found.isError)
})

test('no key, an unknown key, a revoked key: refused; a session is bound to its key', async (ctx) => {
  const refused = (key: string | undefined) =>
    connect(ctx, key, 'anon').then(
      () => false,
      (e: Error) => /UNAUTHORIZED|INVALID_TOKEN/.test(e.message),
    )
  assert.ok(await refused(undefined), 'no key')
  assert.ok(await refused('kbk_unknown'), 'unknown key')
  const k = await newKey(ctx.svc.call, ctx.m.workspaceId, 'temp')
  const { transport } = await connect(ctx, k.api_key, 'temp-client')
  const other = await seedMember(ctx.svc.call, 'owner')
  const theirs = await newKey(ctx.svc.call, other.workspaceId, 'theirs')
  const hijack = await fetch(`${ctx.svc.url}/mcp`, {
    method: 'POST',
    headers: {
      'x-api-key': theirs.api_key,
      'mcp-session-id': transport.sessionId!,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
  })
  assert.is(hijack.status, 404)
  ok(await ctx.svc.call('DELETE', `/api/v1/admin/api-keys/${k.id}`, { token: ADMIN }))
  const revoked = await fetch(`${ctx.svc.url}/mcp`, {
    method: 'POST',
    headers: {
      'x-api-key': k.api_key,
      'mcp-session-id': transport.sessionId!,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/list' }),
  })
  assert.is(revoked.status, 401)
})

test(
  'a client name that cannot author a write, and text no command can store, are refused with 400 at ' + 'once',
  async (ctx) => {
    // Earlier tests' searches are recorded in batches: append those first.
    await ctx.svc.deps.citations.settle()
    const head = await ctx.svc.deps.store.headPosition()
    const post = (body: unknown) =>
      fetch(`${ctx.svc.url}/mcp`, {
        method: 'POST',
        headers: {
          'x-api-key': ctx.key,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(body),
      })
    const initialize = (name: unknown) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name, version: '1' } },
    })
    for (const [name, detail] of [
      ['', /^params\.clientInfo\.name:/],
      ['   ', /^params\.clientInfo\.name:/],
      ['x'.repeat(201), /^params\.clientInfo\.name:/],
      ['nul\u0000x', /NUL/],
      ['half \ud800', /surrogate/],
    ] as const) {
      const r = await post(initialize(name))
      assert.is(r.status, 400, JSON.stringify(name))
      const body = (await r.json()) as { error: { code: string; details: string[] } }
      assert.is(body.error.code, 'VALIDATION_ERROR')
      assert.ok(
        body.error.details.some((d) => detail.test(d)),
        JSON.stringify(body.error.details),
      )
    }
    // Within a session: a tool call whose arguments hold half of an emoji.
    const { client } = await connect(ctx, ctx.key, 'careful-agent')
    let refused = ''
    await client
      .callTool({ name: 'page_write', arguments: { title: 'Half', mode: 'append', content: 'x \ud800' } })
      .catch((e: Error) => (refused = e.message))
    assert.match(refused, /400|surrogate|VALIDATION_ERROR/)
    assert.is(await ctx.svc.deps.store.headPosition(), head)
  },
)

test.run()
