import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey } from '../helpers/agents'
import { type Ctx as McpCtx, call, connect, described } from '../helpers/mcpClient'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

type Ctx = { svc: TestService; m: Member; ids: Record<string, string> }
const test = suite<Ctx>('API: search filters on any metadata key, with operators, and on times')

/** Five notes on one topic, told apart only by their metadata. */
const NOTES: Record<string, object> = {
  draft2023: { status: 'draft', year: 2023, team: ['db', 'ops'], reviewed: false, due: '2023-06-01' },
  final2024: { status: 'final', year: 2024, team: ['db'], reviewed: true, due: '2024-02-15' },
  final2025: { status: 'final', year: 2025, team: ['web'], due: '2025-11-30' },
  archived: { status: 'archived', year: '2022', category: 'old' },
  bare: {},
}

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.ids = {}
  for (const [title, metadata] of Object.entries(NOTES)) {
    const created = ok(
      await ctx.svc.call('POST', '/api/v1/knowledge', {
        token: ctx.m.token,
        body: { title, source: 'text', content: `Release checklist for the storage engine, note ${title}.`, metadata },
      }),
      201,
    )
    ctx.ids[title] = created.id
  }
})
test.after(async ({ svc }) => svc.stop())

const titles = async (ctx: Ctx, filter: object, mode = 'text', extra: object = {}) => {
  const r = await ctx.svc.call('POST', '/api/v1/knowledge/search', {
    token: ctx.m.token,
    body: { query: 'release checklist storage engine', mode, minScore: 0, limit: 20, filter, ...extra },
  })
  return (ok(r).results as { title: string }[]).map((x) => x.title).sort()
}

test('metadata of keys of its own is kept and served as given', async (ctx) => {
  const entry = ok(await ctx.svc.call('GET', `/api/v1/knowledge/${ctx.ids.draft2023}`, { token: ctx.m.token }))
  assert.equal(entry.metadata, NOTES.draft2023)
})

test('each operator, alone and combined, in every mode', async (ctx) => {
  for (const mode of ['text', 'vector', 'hybrid']) {
    const q = (metadata: object) => titles(ctx, { metadata }, mode)
    assert.equal(await q({ status: { eq: 'final' } }), ['final2024', 'final2025'], mode)
    // A list holds a value it contains.
    assert.equal(await q({ team: { eq: 'db' } }), ['draft2023', 'final2024'], mode)
    assert.equal(await q({ status: { in: ['draft', 'archived'] } }), ['archived', 'draft2023'], mode)
    // Not: absent counts as not equal.
    assert.equal(await q({ status: { not: 'final' } }), ['archived', 'bare', 'draft2023'], mode)
    // Numbers compare with numbers only (the string "2022" is not a number), strings with strings.
    assert.equal(await q({ year: { gte: 2024 } }), ['final2024', 'final2025'], mode)
    assert.equal(await q({ year: { gt: 2022, lt: 2025 } }), ['draft2023', 'final2024'], mode)
    assert.equal(await q({ due: { lt: '2024-06-01' } }), ['draft2023', 'final2024'], mode)
    assert.equal(await q({ reviewed: { exists: true } }), ['draft2023', 'final2024'], mode)
    assert.equal(await q({ reviewed: { exists: false } }), ['archived', 'bare', 'final2025'], mode)
    assert.equal(await q({ reviewed: { eq: false } }), ['draft2023'], mode)
    assert.equal(await q({ status: { eq: 'final' }, team: { eq: 'web' } }), ['final2025'], mode)
    assert.equal(await q({ status: { eq: 'nothing' } }), [], mode)
  }
  // With the filters that were there before: category, as a field and as a key.
  assert.equal(await titles(ctx, { metadata: { category: { eq: 'old' } } }), ['archived'])
  assert.equal(await titles(ctx, { metadata: { year: { exists: true } } }, 'text', { category: 'old' }), ['archived'])
})

test('times: created and updated, as bounds', async (ctx) => {
  const all = await titles(ctx, {})
  assert.is(all.length, 5)
  const before = new Date(Date.now() - 60_000).toISOString()
  const after = new Date(Date.now() + 60_000).toISOString()
  assert.equal(await titles(ctx, { createdAt: { gte: before, lt: after } }), all)
  assert.equal(await titles(ctx, { createdAt: { gt: after } }), [])
  // An edit moves an entry's updatedAt past a moment taken before it.
  await new Promise((r) => setTimeout(r, 20))
  const mark = new Date().toISOString()
  await new Promise((r) => setTimeout(r, 20))
  ok(
    await ctx.svc.call('PATCH', `/api/v1/knowledge/${ctx.ids.bare}`, {
      token: ctx.m.token,
      body: { content: 'Release checklist for the storage engine, note bare, edited.' },
    }),
  )
  for (let i = 0; i < 50; i++) {
    if ((await titles(ctx, { updatedAt: { gt: mark } })).length > 0) break
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.equal(await titles(ctx, { updatedAt: { gt: mark } }), ['bare'])
  assert.equal(await titles(ctx, { updatedAt: { gt: mark }, metadata: { status: { exists: true } } }), [])
})

test('vector: a metadata filter matching few entries far from the query still fills the page', async (ctx) => {
  const w = await seedMember(ctx.svc.call, 'owner')
  const add = async (title: string, content: string, metadata: object = {}) =>
    ok(
      await ctx.svc.call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title, source: 'text', content, metadata },
      }),
      201,
    )
  // 150 entries near the query and 6 far from it, the only ones of their region: beyond the index's candidates.
  for (let i = 0; i < 150; i++)
    await add(`near ${i}`, `Checkpoint tuning for the write ahead log ${i}.`, { region: 'eu' })
  for (let i = 0; i < 6; i++) await add(`far ${i}`, `Gardening roses in spring number ${i}.`, { region: 'apac', n: i })
  const r = ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: w.token,
      body: {
        query: 'checkpoint tuning write ahead log',
        mode: 'vector',
        limit: 5,
        minScore: 0,
        filter: { metadata: { region: { eq: 'apac' }, n: { lt: 5 } } },
      },
    }),
  )
  assert.is(r.mode, 'vector')
  assert.equal((r.results as { title: string }[]).map((x) => x.title).sort(), [
    'far 0',
    'far 1',
    'far 2',
    'far 3',
    'far 4',
  ])
})

test('a search as of a past moment filters on the metadata entries had then', async (ctx) => {
  const then = new Date().toISOString()
  await new Promise((r) => setTimeout(r, 20))
  ok(
    await ctx.svc.call('PATCH', `/api/v1/knowledge/${ctx.ids.final2025}`, {
      token: ctx.m.token,
      body: { metadata: { status: 'withdrawn' } },
    }),
  )
  const final = { metadata: { status: { eq: 'final' } } }
  for (let i = 0; i < 50 && (await titles(ctx, final)).length > 1; i++) await new Promise((r) => setTimeout(r, 100))
  assert.equal(await titles(ctx, final), ['final2024'])
  assert.equal(await titles(ctx, final, 'text', { asOf: then }), ['final2024', 'final2025'])
  assert.equal(await titles(ctx, { metadata: { status: { eq: 'withdrawn' } } }, 'text', { asOf: then }), [])
})

test('a mistake names its key and operator, and nothing is searched', async (ctx) => {
  const bad = async (filter: unknown, says: RegExp) => {
    const r = await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query: 'release', filter },
    })
    const body = await expectError(r, 400, 'VALIDATION_ERROR')
    const details = JSON.stringify(body.details)
    assert.match(details, says, details)
  }
  await bad({ metadata: { year: { between: [1, 2] } } }, /filter\.metadata\.year\.between: is not an operator: use eq/)
  await bad({ metadata: { year: { gt: true } } }, /filter\.metadata\.year\.gt: year gt: must be a number, or a string/)
  await bad({ metadata: { status: { in: [] } } }, /filter\.metadata\.status\.in: status in: must be a list of 1-100/)
  await bad({ metadata: { status: 'final' } }, /filter\.metadata\.status: must be an object of operators/)
  await bad({ metadata: { status: {} } }, /filter\.metadata\.status: names no operator/)
  await bad({ metadata: { 'bad key!': { eq: 1 } } }, /filter\.metadata\.bad key!: is not a metadata key/)
  await bad({ createdAt: { gte: 'yesterday' } }, /filter\.createdAt\.gte: must be an ISO 8601 date and time/)
})

test('metadata keys of its own are checked when written', async (ctx) => {
  const create = (metadata: unknown) =>
    ctx.svc.call('POST', '/api/v1/knowledge', {
      token: ctx.m.token,
      body: { title: 'x', source: 'text', content: 'x', metadata },
    })
  const details = async (metadata: unknown) =>
    JSON.stringify((await expectError(await create(metadata), 400, 'VALIDATION_ERROR')).details)
  assert.match(await details({ 'no spaces': 1 }), /metadata\.no spaces: is not a key/)
  assert.match(await details({ nested: { a: 1 } }), /metadata\.nested: must be a string of at most 1000/)
  assert.match(await details({ tags: 'one' }), /metadata\.tags: must be/)
  assert.match(await details(Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))), /at most 50/)
})

test('kb_search takes the same filter through MCP, and its schema describes it', async (ctx) => {
  const mcp: McpCtx = {
    svc: ctx.svc,
    m: ctx.m,
    key: (await newKey(ctx.svc.call, ctx.m.workspaceId, 'filters')).api_key,
    clients: [],
  }
  try {
    const client = await connect(mcp, '/mcp', mcp.key)
    const outputs = await described(client)
    const args = { query: 'release checklist storage engine', mode: 'hybrid', minScore: 0, limit: 10 }
    const hits = await call(client, outputs, 'kb_search', {
      ...args,
      filter: { metadata: { year: { lt: 2025 }, team: { in: ['db', 'web'] } } },
    })
    assert.equal(hits.results.map((r: { title: string }) => r.title).sort(), ['draft2023', 'final2024'])
    const refused = (await client.callTool({
      name: 'kb_search',
      arguments: { ...args, filter: { metadata: { year: { about: 2024 } } } },
    })) as { isError?: boolean; content: { text: string }[] }
    assert.ok(refused.isError)
    assert.match(refused.content[0].text, /filter\.metadata\.year\.about: is not an operator/)
    // page_search: pages have no metadata, and are filtered by when they were created or changed.
    const page = (title: string) =>
      call(client, outputs, 'page_write', { title, mode: 'create', content: `Release checklist: ${title}.` })
    await page('Checklist one')
    await new Promise((r) => setTimeout(r, 20))
    const mark = new Date().toISOString()
    await new Promise((r) => setTimeout(r, 20))
    await page('Checklist two')
    const pages = async (filter: object) => {
      for (let i = 0; ; i++) {
        const found = await call(client, outputs, 'page_search', { query: 'release checklist', mode: 'text', filter })
        const titles = found.results.map((r: { title: string }) => r.title).sort()
        if (titles.length > 0 || i >= 50) return titles
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    assert.equal(await pages({}), ['Checklist one', 'Checklist two'])
    assert.equal(await pages({ createdAt: { gt: mark } }), ['Checklist two'])
    assert.equal(await pages({ createdAt: { lte: mark } }), ['Checklist one'])
  } finally {
    await Promise.all(mcp.clients.map((c) => c.close()))
  }
})

test.run()
