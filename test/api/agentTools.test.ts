import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import Ajv from 'ajv'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokens } from '../../adapters/text'
import { newKey, tool, turnVerificationOn } from '../helpers/agents'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// What an agent meets through MCP, with the official SDK client: schemas in and out with a
// description on every property, annotations, answers that match their outputSchema and fit a
// context window, errors with a next step, an undo it can run, and skills that name real tools.

interface Ctx {
  svc: TestService
  m: Member
  key: string
  clients: Client[]
}

const test = suite<Ctx>('MCP: tools an agent uses without reading docs')

const connect = async (ctx: Ctx, path: string, key?: string) => {
  const client = new Client({ name: 'schema-checker', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(ctx.svc.url + path), {
      requestInit: { headers: key ? { 'x-api-key': key } : {} },
    }),
  )
  ctx.clients.push(client)
  return client
}

/** A sentence about a topic, so every entry matches the query and its chunks are full. */
const filler = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Note ${i} on ${topic}: the relay station logs its readings every hour and keeps them for a year.`,
  ).join(' ')

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'schema-agent')).api_key
  ctx.clients = []
  // Five entries of one 1,000-token chunk each (and more), all about the query.
  for (let i = 0; i < 6; i++) {
    ok(
      await ctx.svc.call('POST', '/api/v1/knowledge', {
        token: ctx.m.token,
        body: {
          source: 'text',
          title: `Relay station manual ${i}`,
          content: filler(`relay station ${i}`, 120),
          chunkingOptions: { chunkSizeTokens: 1000, overlapTokens: 0 },
        },
      }),
      201,
    )
  }
})
test.after(async ({ svc, clients }) => {
  await Promise.all(clients.map((c) => c.close()))
  await svc.stop()
})

/** Every property of a JSON Schema, nested objects and array items included, with where it is. */
const properties = (schema: any, at: string): Array<[string, any]> => {
  const own = Object.entries<any>(schema?.properties ?? {}).map(([k, v]): [string, any] => [`${at}.${k}`, v])
  return own.flatMap(([where, s]) => [
    [where, s] as [string, any],
    ...properties(s, where),
    ...properties(s.items, `${where}[]`),
  ])
}

const ajv = new Ajv({ strict: false })

/** Calls a tool and checks its structuredContent against the outputSchema the tool listed. */
const call = async (client: Client, outputs: Map<string, any>, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as any
  assert.not.ok(result.isError, `${name}: ${JSON.stringify(result.content)}`)
  const validate = ajv.compile(outputs.get(name))
  assert.ok(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`)
  // Older clients read the text content: the same answer.
  assert.equal(JSON.parse(result.content[0].text), result.structuredContent)
  return result.structuredContent
}

const described = async (client: Client) => {
  const listed = (await client.listTools()).tools
  for (const t of listed) {
    assert.ok(t.description && t.description.length > 40, `${t.name} says when to use it`)
    assert.ok(t.outputSchema, `${t.name} has an outputSchema`)
    for (const [where, s] of [...properties(t.inputSchema, 'input'), ...properties(t.outputSchema, 'output')])
      assert.ok(typeof s.description === 'string' && s.description.length > 5, `${t.name} ${where} is described`)
    const a = t.annotations ?? {}
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
      assert.type(a[hint], 'boolean', `${t.name} declares ${hint}`)
  }
  return new Map(listed.map((t) => [t.name, t.outputSchema]))
}

test('every tool: described inputs and outputs, annotations that fit it', async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  await described(client)
  const byName = new Map((await client.listTools()).tools.map((t) => [t.name, t.annotations]))
  for (const name of ['page_search', 'page_read', 'page_history', 'kb_search', 'kb_get_entry', 'kb_proposal_status'])
    assert.is(byName.get(name)?.readOnlyHint, true, `${name} is read-only`)
  assert.equal(
    [byName.get('page_write')?.readOnlyHint, byName.get('page_delete')?.destructiveHint],
    [false, true],
    'page_write changes data; page_delete destroys it',
  )
})

test("every answer matches its outputSchema; an agent undoes its writes with its receipt's call", async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const outputs = await described(client)
  const deploy = 'Roll the release out one zone at a time. '.repeat(400)
  const long = `# Runbook\nIntro.\n\n## Deploy\n${deploy}\n\n## Rollback\nRevert.`
  const created = await call(client, outputs, 'page_write', { title: 'Ops runbook', mode: 'create', content: long })
  const appended = await call(client, outputs, 'page_write', { pageId: created.pageId, content: 'Call the on-call.' })
  const section = await call(client, outputs, 'page_read', { pageId: created.pageId, section: 'rollback' })
  assert.is(section.content.trim(), '## Rollback\nRevert.\n\nCall the on-call.')
  assert.equal(section.sections, ['Runbook', 'Deploy', 'Rollback'])
  const first = await call(client, outputs, 'page_read', { title: 'ops RUNBOOK', maxChars: 500 })
  assert.equal([first.content.length, first.range.start, first.next], [500, 0, 500])
  const more = await call(client, outputs, 'page_read', { pageId: created.pageId, offset: first.next, maxChars: 500 })
  assert.is(more.range.start, 500)
  await call(client, outputs, 'page_history', { pageId: created.pageId })
  const found = await call(client, outputs, 'page_search', { query: 'rollback zone release', mode: 'text' })
  assert.is(found.results[0].citation, 'Ops runbook · v2')
  // The undo of the append, then of the create, each run as its receipt gave it.
  const reverted = await call(client, outputs, appended.undo.tool, appended.undo.arguments)
  assert.is(reverted.version, 3)
  const back = await call(client, outputs, 'page_read', { pageId: created.pageId, maxChars: 100_000 })
  assert.is(back.content, long)
  // A created page is taken back whole by its creator (the revert above was also its own).
  const scratch = await call(client, outputs, 'page_write', { title: 'Scratch', mode: 'create', content: 'x' })
  const gone = await call(client, outputs, scratch.undo.tool, scratch.undo.arguments)
  assert.is(gone.deleted, true)
  // Entries: the search's id reads the entry, a range of it.
  const hits = await call(client, outputs, 'kb_search', { query: 'relay station readings', mode: 'text' })
  const entry = await call(client, outputs, 'kb_get_entry', { id: hits.results[0].id, maxChars: 300 })
  assert.ok(entry.content.length <= 300 && entry.next === entry.range.end, JSON.stringify(entry.range))
  // A write held for review, followed by its status.
  const held = ok(
    await ctx.svc.call('POST', '/api/v1/collections', {
      token: ctx.m.token,
      body: { name: 'Reviewed', writePolicy: 'hold_for_review' },
    }),
    201,
  )
  const proposal = await call(client, outputs, 'page_write', {
    title: 'Held page',
    content: 'y',
    collectionId: held.id,
  })
  assert.is(proposal.held, true)
  const status = await call(client, outputs, 'kb_proposal_status', { proposalId: proposal.proposalId })
  assert.is(status.status, 'pending')
  // In a held collection, an approved change is taken back by proposing the old version: a person decides.
  const page = ok(
    await ctx.svc.call('POST', '/api/v1/pages', {
      token: ctx.m.token,
      body: { title: 'Reviewed notes', content: 'v1', collectionId: held.id },
    }),
    201,
  )
  const change = await call(client, outputs, 'page_write', { pageId: page.id, content: 'agent line' })
  const approve = async (id: string) =>
    ok(await ctx.svc.call('POST', `/api/v1/proposals/${id}/approve`, { token: ctx.m.token, body: {} }))
  await approve(change.proposalId)
  const approved = await call(client, outputs, 'kb_proposal_status', { proposalId: change.proposalId })
  assert.equal([approved.status, approved.version], ['approved', 2])
  const proposedUndo = await call(client, outputs, approved.undo.tool, approved.undo.arguments)
  assert.equal([proposedUndo.held, proposedUndo.status], [true, 'pending'])
  assert.is(ok(await ctx.svc.call('GET', `/api/v1/pages/${page.id}`, { token: ctx.m.token })).version, 2)
  await approve(proposedUndo.proposalId)
  const restored = ok(await ctx.svc.call('GET', `/api/v1/pages/${page.id}`, { token: ctx.m.token }))
  assert.equal([restored.version, restored.content], [3, 'v1'])
  // An agent's own page, once a person moved it into a held collection, is a person's to delete.
  const own = await call(client, outputs, 'page_write', { title: 'Moved later', mode: 'create', content: 'z' })
  ok(
    await ctx.svc.call('PATCH', `/api/v1/pages/${own.pageId}`, {
      token: ctx.m.token,
      body: { collectionId: held.id },
    }),
  )
  const refused = (await client.callTool({ name: own.undo.tool, arguments: own.undo.arguments })) as any
  assert.equal([refused.isError, JSON.parse(refused.content[0].text).code], [true, 'FORBIDDEN'])
})

test('a default search answer fits a context window; include "chunk" gives the chunks', async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const outputs = await described(client)
  const compact = await call(client, outputs, 'kb_search', { query: 'relay station hourly readings', limit: 5 })
  assert.is(compact.results.length, 5)
  const tokens = countTokens(JSON.stringify(compact))
  assert.ok(tokens <= 1200, `${tokens} tokens for 5 results`)
  // The receipt is a signed token an agent carries: five results' ids, versions and hashes in it.
  const receiptTokens = countTokens(compact.receipt.id)
  assert.ok(receiptTokens <= 210, `the receipt of 5 results is ${receiptTokens} tokens`)
  for (const r of compact.results) {
    assert.ok(r.highlight.length > 20 && r.highlight.length <= 400, r.highlight)
    assert.not.ok('content' in r, 'no chunk unless asked')
  }
  const full = await call(client, outputs, 'kb_search', {
    query: 'relay station hourly readings',
    limit: 5,
    include: 'chunk',
  })
  const chunkTokens = full.results.map((r: any) => countTokens(r.content))
  assert.ok(
    chunkTokens.every((n: number) => n > 700 && n <= 1000),
    `chunks of ${chunkTokens.join(', ')} tokens`,
  )
  // REST keeps its shape unless asked.
  const body = { query: 'relay station hourly readings', limit: 5 }
  const rest = ok(await ctx.svc.call('POST', '/api/v1/knowledge/search', { token: ctx.m.token, body }))
  assert.ok(rest.results[0].content.length > 2000 && rest.results[0].scores)
  const view = ok(await ctx.svc.call('POST', '/api/v1/knowledge/search?view=compact', { token: ctx.m.token, body }))
  assert.equal(Object.keys(view.results[0]).sort(), [
    'chunkIndex',
    'citation',
    'highlight',
    'id',
    'score',
    'sha256',
    'title',
    'version',
  ])
  assert.ok(view.receipt.id, 'the compact view keeps the receipt')
})

test('errors say what to do next and are marked isError', async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const page = ok(await tool(ctx.svc.call, ctx.key, 'page_write', { title: 'Conflicted', content: 'a' }))
  const stale = (await client.callTool({
    name: 'page_write',
    arguments: { pageId: page.pageId, mode: 'replace', content: 'b', expectedVersion: 7 },
  })) as any
  assert.is(stale.isError, true)
  const e = JSON.parse(stale.content[0].text)
  assert.is(e.code, 'VERSION_CONFLICT')
  assert.match(e.nextStep, /page_read \(it is at version 1\)/)
  const missing = JSON.parse(
    ((await client.callTool({ name: 'kb_get_entry', arguments: { id: 'nope' } })) as any).content[0].text,
  )
  assert.equal([missing.code, /kb_search/.test(missing.nextStep)], ['NOT_FOUND', true])
  const section = JSON.parse(
    ((await client.callTool({ name: 'page_read', arguments: { pageId: page.pageId, section: 'Nowhere' } })) as any)
      .content[0].text,
  )
  assert.is(section.code, 'VALIDATION_ERROR')
  assert.match(section.details[0], /no heading "Nowhere"/)
})

test("every skill's prompt names only tools that exist, and says how to cite", async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const names = new Set((await client.listTools()).tools.map((t) => t.name))
  const { prompts } = await client.listPrompts()
  assert.is(prompts.length, 5)
  for (const p of prompts) {
    for (const a of p.arguments ?? []) assert.ok(a.description, `${p.name}: ${a.name} is described`)
    const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, 'x']))
    const text = ((await client.getPrompt({ name: p.name, arguments: args })).messages[0].content as any).text
    const named = [...new Set(text.match(/\b(?:page|kb)_[a-z_]+\b/g) ?? [])] as string[]
    assert.ok(named.length >= 1, `${p.name} names its tools`)
    for (const n of named) assert.ok(names.has(n), `${p.name} names ${n}, which is not a tool`)
    if (p.name !== 'decision-log') assert.match(text, /page_search/, `${p.name} searches first`)
    // Every skill, the writing ones included, says how to cite the knowledge it used.
    assert.match(text, '"<title> · v<version>"', `${p.name} says how to cite`)
  }
})

test("a pack's read-only MCP endpoint: the same schemas, answers and window", async (ctx) => {
  await turnVerificationOn(ctx.svc.call, ctx.m.token)
  const collection = ok(
    await ctx.svc.call('POST', '/api/v1/collections', { token: ctx.m.token, body: { name: 'Public' } }),
    201,
  )
  const written = ok(
    await tool(ctx.svc.call, ctx.key, 'page_write', {
      title: 'Public relay guide',
      content: `# Guide\n\n## Readings\n${filler('relay readings', 60)}\n\n## Storage\nKept a year.`,
      collectionId: collection.id,
    }),
  )
  ok(await ctx.svc.call('POST', `/api/v1/pages/${written.pageId}/verify`, { token: ctx.m.token }))
  ok(
    await ctx.svc.call('POST', '/api/v1/packs', {
      token: ctx.m.token,
      body: { collectionId: collection.id, slug: 'relay-pack' },
    }),
    201,
  )
  const client = await connect(ctx, '/packs/relay-pack/mcp')
  const outputs = await described(client)
  for (const t of (await client.listTools()).tools) assert.is(t.annotations?.readOnlyHint, true)
  const found = await call(client, outputs, 'page_search', { query: 'relay readings hourly', mode: 'text' })
  assert.equal(found.results[0].citation, 'Public relay guide · v1')
  assert.ok(countTokens(JSON.stringify(found)) <= 400)
  const section = await call(client, outputs, 'page_read', { pageId: written.pageId, section: 'storage' })
  assert.is(section.content.trim(), '## Storage\nKept a year.')
})

test.run()
