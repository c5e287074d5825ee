import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type SearchContext, search, startWithCorpus } from '../helpers/searchCorpus'
import { expectError, ok, seedMember } from '../helpers/service'

const test = suite<SearchContext>('API: search')
test.before(startWithCorpus)
test.after(async ({ svc }) => svc.stop())

test('text: the entry holding a rare query term ranks first; scores are in [0, 1] and descending', async ({
  svc,
  m,
  ids,
}) => {
  const r = await search(svc, m.token, { query: 'quokkasaurus tuples', mode: 'text', minScore: 0 })
  assert.is(r.mode, 'text')
  assert.is(r.results[0].id, ids.zebra)
  for (const x of r.results) assert.ok(x.score > 0 && x.score <= 1)
  for (let i = 1; i < r.results.length; i++) assert.ok(r.results[i - 1].score >= r.results[i].score)
  assert.equal(Object.keys(r.results[0]).sort(), [
    'chunkIndex',
    'content',
    'highlight',
    'id',
    'metadata',
    'ranks',
    'score',
    'scores',
    'sha256',
    'source',
    'title',
    'version',
  ])
})

test('one result per entry, its best chunk as content (a long entry with many chunks appears once)', async ({
  svc,
  m,
  ids,
}) => {
  for (const mode of ['text', 'vector', 'hybrid']) {
    const r = await search(svc, m.token, { query: 'vacuum freezing wraparound', mode, minScore: 0, limit: 50 })
    const seen = r.results.map((x: any) => x.id)
    assert.is(new Set(seen).size, seen.length, `${mode}: duplicates`)
    if (mode !== 'vector') {
      const long = r.results.find((x: any) => x.id === ids.long)
      assert.ok(long, `${mode}: long entry found`)
      assert.match(long.content, /wraparound/)
      assert.ok(long.chunkIndex > 0)
    }
  }
})

test(
  "hybrid: results explain themselves: each leg's score and rank, the fused score, and a highlight of the " +
    'matching words',
  async ({ svc, m, ids }) => {
    const r = await search(svc, m.token, { query: 'quokkasaurus tuples', mode: 'hybrid', minScore: 0 })
    assert.is(r.mode, 'hybrid')
    const top = r.results[0]
    assert.is(top.id, ids.zebra)
    assert.equal(Object.keys(top.scores).sort(), ['fused', 'text', 'vector'])
    assert.is(top.score, top.scores.fused)
    for (const x of Object.values(top.scores) as number[]) assert.ok(x >= 0 && x <= 1)
    assert.is(top.ranks.text, 1)
    assert.ok(top.ranks.vector >= 1)
    const h = top.highlight
    assert.is(top.content.slice(h.start, h.end), h.text)
    assert.equal(h.terms.map((t: any) => top.content.slice(t.start, t.end)).sort(), ['quokkasaurus', 'tuples'])
    // A result the text leg did not find has no text rank, and is not shown a text score above the ones it found.
    const weak = r.results.find((x: any) => x.ranks.text === undefined)
    if (weak) assert.ok(weak.scores.text < top.scores.text)
  },
)

test(
  'scores mean relevance: a clear match scores high, the unrelated results of the same search low, and ' +
    'minScore drops those',
  async ({ svc, m, ids }) => {
    for (const mode of ['text', 'hybrid']) {
      const all = await search(svc, m.token, { query: 'quokkasaurus', mode, minScore: 0, limit: 50 })
      assert.is(all.results[0].id, ids.zebra)
      assert.ok(all.results[0].score >= 0.5, `${mode}: ${all.results[0].score}`)
      for (const x of all.results.slice(1)) assert.ok(x.score < 0.5, `${mode}: ${x.title} ${x.score}`)
      const kept = await search(svc, m.token, { query: 'quokkasaurus', mode })
      assert.equal(
        kept.results.map((x: any) => x.id),
        [ids.zebra],
        mode,
      )
    }
  },
)

test('minScore drops lower results; limit caps the rest; defaults are hybrid, 5, 0.5', async ({ svc, m }) => {
  const all = await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: 0, limit: 50 })
  assert.ok(all.results.length >= 4)
  const cut = all.results[2].score
  const above = await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: cut, limit: 50 })
  assert.ok(above.results.every((x: any) => x.score >= cut))
  assert.is(above.results.length, all.results.filter((x: any) => x.score >= cut).length)
  assert.is(
    (await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: 0, limit: 1 })).results.length,
    1,
  )
  assert.is((await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: 1 })).results.length, 0)
  const d = await search(svc, m.token, { query: 'vacuum' })
  assert.is(d.mode, 'hybrid')
  assert.ok(d.results.length <= 5 && d.results.every((x: any) => x.score >= 0.5))
})

test('quotes, operators, parentheses, backslashes, emoji and SQL are searched as text, never a 500', async ({
  svc,
  m,
}) => {
  for (const query of [
    `it's "quoted"`,
    'a AND (b OR c) NOT d',
    '\\\\ back \\ slash',
    '😀 vacuum 🔥',
    "'; DROP TABLE kb_chunks; --",
    '***',
    '%_%',
    "to_bm25query('x')",
  ]) {
    for (const mode of ['text', 'vector', 'hybrid']) {
      const r = await svc.call('POST', '/api/v1/knowledge/search', {
        token: m.token,
        body: { query, mode, minScore: 0 },
      })
      assert.is(r.status, 200, `${mode} ${query}: ${JSON.stringify(r.body)}`)
    }
  }
  const r = await search(svc, m.token, { query: '😀 vacuum 🔥', mode: 'text', minScore: 0 })
  assert.ok(r.results.length > 0)
})

test('a query that matches nothing answers no results in every mode, at any minScore', async ({ svc, m }) => {
  // No word to match, and no feature to embed: the vector leg has no similarity to rank by.
  for (const mode of ['text', 'vector', 'hybrid']) {
    for (const minScore of [0, 0.5]) {
      const r = await search(svc, m.token, { query: '🚀 🚀', mode, minScore, limit: 50 })
      assert.equal(
        r.results,
        [],
        `${mode} at ${minScore}: ${JSON.stringify(r.results.map((x: any) => [x.title, x.score]))}`,
      )
    }
  }
})

test('vector falls back to text when the workspace has no embeddings, and says so', async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { ingestion: { autoEmbed: false } } }))
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: w.token,
      body: { title: 'plain', source: 'text', content: 'Snollygoster appears here.' },
    }),
    201,
  )
  for (const mode of ['vector', 'hybrid']) {
    const r = await search(svc, w.token, { query: 'snollygoster', mode, minScore: 0 })
    assert.is(r.mode, 'text')
    assert.match(r.fallback, /no embeddings/)
    assert.equal(
      r.results.map((x: any) => x.id),
      [e.id],
    )
  }
})

test('validation, a disabled knowledge base, and permissions', async ({ svc, m }) => {
  const bad = async (body: object, field: string) => {
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge/search', { token: m.token, body }),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      e.details!.some((d) => d.startsWith(`${field}:`)),
      JSON.stringify(e.details),
    )
  }
  await bad({}, 'query')
  await bad({ query: '' }, 'query')
  await bad({ query: 'x'.repeat(1001) }, 'query')
  await bad({ query: 'x', limit: 0 }, 'limit')
  await bad({ query: 'x', limit: 51 }, 'limit')
  await bad({ query: 'x', minScore: -0.1 }, 'minScore')
  await bad({ query: 'x', minScore: 1.1 }, 'minScore')
  await bad({ query: 'x', mode: 'fuzzy' }, 'mode')
  await bad({ query: 'x', source: 'text' }, 'source')
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  ok(await svc.call('POST', '/api/v1/knowledge/search', { token: viewer.token, body: { query: 'vacuum' } }))
  const off = await seedMember(svc.call, 'owner')
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: off.token, body: { enabled: false } }))
  expectError(
    await svc.call('POST', '/api/v1/knowledge/search', { token: off.token, body: { query: 'vacuum' } }),
    403,
    'FORBIDDEN',
  )
})

test.run()
