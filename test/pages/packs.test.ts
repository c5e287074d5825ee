import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool, turnVerificationOn } from '../helpers/agents'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

interface Ctx {
  svc: TestService
  m: Member
  key: string
  collectionId: string
  pages: Record<string, string>
}
const test = suite<Ctx>('API: public packs (web page and read-only MCP) over verified pages at their pins')

test.before(async (ctx) => {
  ctx.svc = await startTestService({
    PACK_REQUESTS_PER_MINUTE: '40',
    PACK_CITATIONS_FLUSH_MS: '600000',
    PUBLIC_URL: 'https://kb.example.com/',
  })
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'agent')).api_key
  ctx.collectionId = ok(
    await ctx.svc.call('POST', '/api/v1/collections', { token: ctx.m.token, body: { name: 'Public docs' } }),
    201,
  ).id
  const write = async (title: string, content: string) =>
    ok(await tool(ctx.svc.call, ctx.key, 'page_write', { title, content, collectionId: ctx.collectionId }))
      .pageId as string
  ctx.pages = {
    verified: await write('Install guide', 'Run the installer and accept the licence.'),
    draft: await write('Draft roadmap', 'Secret plans for the zeppelin fleet.'),
    drifted: await write('Pricing', 'The plan costs ten euros.'),
    hostile: await write(
      'Hostile page',
      'Hi <script>alert("pwned")</script> <img src=x onerror=alert(1)> [click](javascript:alert(1)) ' +
        '[ok](https://example.com)',
    ),
  }
})
test.after(async ({ svc }) => svc.stop())

const publicGet = (ctx: Ctx, path: string) => fetch(ctx.svc.url + path)

test('publishing needs verification on; slugs are checked and unique across workspaces', async (ctx) => {
  const { svc, m, collectionId } = ctx
  expectError(
    await svc.call('POST', '/api/v1/packs', { token: m.token, body: { collectionId, slug: 'docs' } }),
    400,
    'VALIDATION_ERROR',
  )
  await turnVerificationOn(svc.call, m.token)
  for (const id of [ctx.pages.verified, ctx.pages.drifted, ctx.pages.hostile])
    ok(await svc.call('POST', `/api/v1/pages/${id}/verify`, { token: m.token }))
  ok(
    await tool(svc.call, ctx.key, 'page_write', {
      pageId: ctx.pages.drifted,
      content: 'Now it costs a hundred euros (unreviewed).',
    }),
  )
  expectError(
    await svc.call('POST', '/api/v1/packs', { token: m.token, body: { collectionId, slug: 'Bad Slug!' } }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await svc.call('POST', '/api/v1/packs', { token: m.token, body: { collectionId: 'nope', slug: 'docs' } }),
    404,
    'NOT_FOUND',
  )
  const pack = ok(
    await svc.call('POST', '/api/v1/packs', { token: m.token, body: { collectionId, slug: 'acme-docs' } }),
    201,
  )
  // Links handed out are absolute, from PUBLIC_URL (its trailing slash dropped).
  assert.equal(
    [pack.slug, pack.url, pack.mcpUrl],
    ['acme-docs', 'https://kb.example.com/packs/acme-docs', 'https://kb.example.com/packs/acme-docs/mcp'],
  )
  const other = await seedMember(svc.call, 'owner')
  await turnVerificationOn(svc.call, other.token)
  const theirs = ok(
    await svc.call('POST', '/api/v1/collections', { token: other.token, body: { name: 'Theirs' } }),
    201,
  )
  expectError(
    await svc.call('POST', '/api/v1/packs', {
      token: other.token,
      body: { collectionId: theirs.id, slug: 'acme-docs' },
    }),
    409,
    'CONFLICT',
  )
  expectError(
    await svc.call('POST', '/api/v1/packs', { token: other.token, body: { collectionId, slug: 'stolen' } }),
    404,
    'NOT_FOUND',
  )
})

test('the public page lists verified pages at their pins, never a draft, and renders content safely', async (ctx) => {
  const res = await publicGet(ctx, '/packs/acme-docs')
  assert.is(res.status, 200)
  assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'none'/)
  const html = await res.text()
  assert.ok(html.includes('Install guide') && html.includes('Pricing') && html.includes('Hostile page'))
  assert.not.ok(html.includes('Draft roadmap') || html.includes('zeppelin'), 'an unverified page is never served')
  assert.ok(html.includes('The plan costs ten euros.'), 'a drifted page shows its pinned content')
  assert.not.ok(html.includes('a hundred euros'))
  assert.not.ok(/<script/i.test(html), 'no script element')
  assert.not.ok(/<img[^>]*onerror/i.test(html), 'raw HTML is escaped')
  assert.not.ok(/href="javascript:/i.test(html), 'no javascript: link')
  assert.ok(html.includes('&lt;script&gt;'))
  assert.ok(html.includes('href="https://example.com"'))
  assert.is((await publicGet(ctx, '/packs/no-such-pack')).status, 404)
})

test(
  'the pack MCP endpoint: read-only search and read over the pins, with citations of the pinned ' + 'versions',
  async (ctx) => {
    const client = new Client({ name: 'outside-agent', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.svc.url}/packs/acme-docs/mcp`)))
    try {
      assert.equal((await client.listTools()).tools.map((t) => t.name).sort(), ['page_read', 'page_search'])
      const found = (
        await client.callTool({
          name: 'page_search',
          arguments: { query: 'plan costs euros', mode: 'text', minScore: 0 },
        })
      ).structuredContent as any
      assert.equal(
        found.results.map((r: any) => r.citation),
        ['Pricing · v1'],
      )
      assert.is(found.results[0].highlight, 'The plan costs ten euros.')
      const none = (
        await client.callTool({
          name: 'page_search',
          arguments: { query: 'zeppelin fleet', mode: 'text', minScore: 0 },
        })
      ).structuredContent as any
      assert.equal(none.results, [])
      const read = (await client.callTool({ name: 'page_read', arguments: { title: 'pricing' } }))
        .structuredContent as any
      assert.equal([read.version, read.content], [1, 'The plan costs ten euros.'])
      assert.ok((await client.callTool({ name: 'page_read', arguments: { pageId: ctx.pages.draft } })).isError)
      assert.ok((await client.callTool({ name: 'page_write', arguments: { title: 'x', content: 'y' } })).isError)
    } finally {
      await client.close()
    }
    const page = ok(await ctx.svc.call('GET', `/api/v1/pages/${ctx.pages.drifted}?settle=true`, { token: ctx.m.token }))
    assert.is(page.citedCount, 1, 'a serve through the pack is a citation')
    assert.equal([page.version, page.verification.state], [2, 'changed_since_verified'])
  },
)

test('re-verifying moves what the pack serves to the new latest', async (ctx) => {
  ok(await ctx.svc.call('POST', `/api/v1/pages/${ctx.pages.drifted}/verify`, { token: ctx.m.token }))
  const html = await (await publicGet(ctx, '/packs/acme-docs')).text()
  assert.ok(html.includes('a hundred euros (unreviewed)'))
  assert.ok(html.includes('Verified version 2'))
})

const pageSearchEvents = async (ctx: Ctx) =>
  (await ctx.svc.deps.db.pool.query(`SELECT count(*)::int AS n FROM es_events WHERE type = 'PageSearchServed'`)).rows[0]
    .n as number

test(
  'a flood of anonymous pack calls: 429 with Retry-After past the limit per address; its citations become ' +
    'one event',
  async (ctx) => {
    const events = await pageSearchEvents(ctx)
    const cited = ok(
      await ctx.svc.call('GET', `/api/v1/pages/${ctx.pages.verified}?settle=true`, { token: ctx.m.token }),
    ).citedCount as number
    const client = new Client({ name: 'flood', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.svc.url}/packs/acme-docs/mcp`)))
    let searches = 0
    let refused: unknown
    const receipts = new Set<string>()
    try {
      for (let i = 0; i < 60 && !refused; i++) {
        try {
          const answer = await client.callTool({
            name: 'page_search',
            // Two questions, asked in turn: two distinct answers.
            arguments: { query: i % 2 ? 'installer licence' : 'accept the licence', mode: 'text', minScore: 0 },
          })
          receipts.add((answer.structuredContent as any).receipt.id)
          searches++
        } catch (error) {
          refused = error
        }
      }
    } finally {
      await client.close().catch(() => {})
    }
    assert.ok(refused, 'the flood was stopped')
    assert.match(String(refused), /RATE_LIMITED/, String(refused))
    assert.ok(searches > 10 && searches < 40, `${searches} searches answered before the limit of 40 requests`)
    // The page and any request of this address now wait; Retry-After says how long.
    const page = await publicGet(ctx, '/packs/acme-docs')
    assert.is(page.status, 429)
    assert.ok(Number(page.headers.get('retry-after')) >= 1)
    assert.is((await page.json()).error.code, 'RATE_LIMITED')
    // Nothing appended per call: the tally waits for its period (or, here, for a read asked to settle).
    assert.is(await pageSearchEvents(ctx), events)
    const after = ok(
      await ctx.svc.call('GET', `/api/v1/pages/${ctx.pages.verified}?settle=true`, { token: ctx.m.token }),
    )
    assert.is(after.citedCount, cited + searches, 'every serve is counted')
    assert.is(await pageSearchEvents(ctx), events + 1, 'in one event')
    // Each distinct answer has one receipt, kept with the tally: the same answer, the same receipt.
    assert.is(receipts.size, 2)
    for (const id of receipts) {
      const receipt = ok(await ctx.svc.call('GET', `/api/v1/receipts/${id}`, { token: ctx.m.token }))
      assert.equal([receipt.kind, receipt.mode, receipt.results[0].pageId], ['pages', 'text', ctx.pages.verified])
      assert.is(receipt.results[0].status, 'current')
    }
  },
)

test.run()
