import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokens } from '../../adapters/text'
import { tool, turnVerificationOn } from '../helpers/agents'
import { type Ctx, call, closeAll, connect, described, filler, startWithRelayEntries } from '../helpers/mcpClient'
import { ok } from '../helpers/service'

const test = suite<Ctx>('MCP: tools an agent uses without reading docs (context window, packs)')
test.before(startWithRelayEntries)
test.after(closeAll)

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
