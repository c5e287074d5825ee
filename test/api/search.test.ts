import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member; ids: Record<string, string> }>('API: search')

const corpus: Record<string, { content: string; source?: string; metadata?: object }> = {
  vacuum: { content: 'Vacuum reclaims storage occupied by dead tuples. Autovacuum launches workers that vacuum tables automatically.', metadata: { category: 'maintenance', tags: ['pg', 'ops'] } },
  indexes: { content: 'A B-tree index speeds up equality and range queries. Indexes cost writes and storage.', source: 'faq', metadata: { category: 'performance', tags: ['pg'] } },
  wal: { content: 'The write-ahead log records every change before it reaches the data files, so a crash can be replayed. Checkpoints flush the log.', metadata: { category: 'maintenance', tags: ['ops'] } },
  weather: { content: 'It is sunny and warm today with a light breeze from the west and no rain expected.', metadata: { category: 'misc' } },
  zebra: { content: 'The quokkasaurus is a rare term that appears in exactly one entry about tuples.', metadata: { category: 'misc' } },
  long: { content: `${'Filler sentence about nothing in particular. '.repeat(60)}Vacuum freezing prevents transaction id wraparound in the tuples. ${'More filler text to pad the entry. '.repeat(60)}`, metadata: { category: 'maintenance' } },
}

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.ids = {}
  for (const [title, e] of Object.entries(corpus)) {
    const body = { title, source: e.source ?? 'text', content: e.content, metadata: e.metadata ?? {}, chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 10 } }
    ctx.ids[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
})
test.after(async ({ svc }) => svc.stop())

const search = async (svc: TestService, token: string, body: object) => ok(await svc.call('POST', '/api/v1/knowledge/search', { token, body }))

test('text: the entry holding a rare query term ranks first; scores are in [0, 1] and descending', async ({ svc, m, ids }) => {
  const r = await search(svc, m.token, { query: 'quokkasaurus tuples', mode: 'text', minScore: 0 })
  assert.is(r.mode, 'text')
  assert.is(r.results[0].id, ids.zebra)
  for (const x of r.results) assert.ok(x.score > 0 && x.score <= 1)
  for (let i = 1; i < r.results.length; i++) assert.ok(r.results[i - 1].score >= r.results[i].score)
  assert.equal(Object.keys(r.results[0]).sort(), ['chunkIndex', 'content', 'id', 'metadata', 'score', 'source', 'title'])
})

test('one result per entry, its best chunk as content (a long entry with many chunks appears once)', async ({ svc, m, ids }) => {
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

test('hybrid: fused scores are normalised so rank one in both legs scores 1.0', async ({ svc, m, ids }) => {
  const r = await search(svc, m.token, { query: 'quokkasaurus', mode: 'hybrid', minScore: 0 })
  assert.is(r.mode, 'hybrid')
  assert.is(r.results[0].id, ids.zebra)
  assert.is(r.results[0].score, 1)
})

test('minScore drops lower results; limit caps the rest; defaults are hybrid, 5, 0.5', async ({ svc, m }) => {
  const all = await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: 0, limit: 50 })
  assert.ok(all.results.length >= 4)
  const cut = all.results[2].score
  const above = await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: cut, limit: 50 })
  assert.ok(above.results.every((x: any) => x.score >= cut))
  assert.is(above.results.length, all.results.filter((x: any) => x.score >= cut).length)
  assert.is((await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: 0, limit: 1 })).results.length, 1)
  assert.is((await search(svc, m.token, { query: 'vacuum tuples log', mode: 'vector', minScore: 1 })).results.length, 0)
  const d = await search(svc, m.token, { query: 'vacuum' })
  assert.is(d.mode, 'hybrid')
  assert.ok(d.results.length <= 5 && d.results.every((x: any) => x.score >= 0.5))
})

test('filters source, category and tag, alone and combined', async ({ svc, m, ids }) => {
  const q = (f: object) => search(svc, m.token, { query: 'vacuum index log tuples storage', mode: 'text', minScore: 0, limit: 50, ...f }).then((r) => r.results.map((x: any) => x.id).sort())
  assert.equal(await q({ source: 'faq' }), [ids.indexes])
  assert.equal(await q({ category: 'maintenance' }), [ids.vacuum, ids.wal, ids.long].sort())
  assert.equal(await q({ tag: 'ops' }), [ids.vacuum, ids.wal].sort())
  assert.equal(await q({ category: 'maintenance', tag: 'pg' }), [ids.vacuum])
  assert.equal(await q({ source: 'faq', tag: 'ops' }), [])
})

test('vector: a filter applied inside the index scan still fills limit when enough entries match', async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  // 120 entries close to the query, 8 far from it carrying the tag: the tagged ones are not
  // among the nearest 40 (the HNSW candidate list), so only an iterative scan finds them all.
  for (let i = 0; i < 120; i++) {
    ok(await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: `near ${i}`, source: 'text', content: `Checkpoint tuning for the write ahead log ${i}.` } }), 201)
  }
  for (let i = 0; i < 8; i++) {
    ok(await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: `far ${i}`, source: 'text', content: `Gardening roses in spring number ${i}.`, metadata: { tags: ['rare'] } } }), 201)
  }
  const r = await search(svc, w.token, { query: 'checkpoint tuning write ahead log', mode: 'vector', tag: 'rare', limit: 8, minScore: 0 })
  assert.is(r.mode, 'vector')
  assert.is(r.results.length, 8)
  assert.ok(r.results.every((x: any) => x.title.startsWith('far')))
})

test('quotes, operators, parentheses, backslashes, emoji and SQL are searched as text, never a 500', async ({ svc, m }) => {
  for (const query of [`it's "quoted"`, 'a AND (b OR c) NOT d', '\\\\ back \\ slash', '😀 vacuum 🔥', "'; DROP TABLE kb_chunks; --", '***', '%_%', 'to_bm25query(\'x\')']) {
    for (const mode of ['text', 'vector', 'hybrid']) {
      const r = await svc.call('POST', '/api/v1/knowledge/search', { token: m.token, body: { query, mode, minScore: 0 } })
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
      assert.equal(r.results, [], `${mode} at ${minScore}: ${JSON.stringify(r.results.map((x: any) => [x.title, x.score]))}`)
    }
  }
})

test('a disabled or deleted entry never appears, right after the write that removed it', async ({ svc, m }) => {
  const e = ok(await svc.call('POST', '/api/v1/knowledge', { token: m.token, body: { title: 'ephemeral', source: 'text', content: 'Xylophonic marmalade is ephemeral.' } }), 201)
  const find = async () => (await search(svc, m.token, { query: 'xylophonic marmalade', mode: 'hybrid', minScore: 0 })).results.map((x: any) => x.id)
  assert.ok((await find()).includes(e.id))
  ok(await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, { token: m.token, body: { isEnabled: false } }))
  assert.not.ok((await find()).includes(e.id))
  ok(await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, { token: m.token, body: { isEnabled: true } }))
  assert.ok((await find()).includes(e.id))
  ok(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token }))
  assert.not.ok((await find()).includes(e.id))
})

test('workspace isolation: the same sentence in two workspaces is found only in the searcher’s', async ({ svc }) => {
  const a = await seedMember(svc.call, 'owner')
  const b = await seedMember(svc.call, 'owner')
  const sentence = 'Flibbertigibbet protocols synchronise the moonbase.'
  const ea = ok(await svc.call('POST', '/api/v1/knowledge', { token: a.token, body: { title: 'A', source: 'text', content: sentence } }), 201)
  const eb = ok(await svc.call('POST', '/api/v1/knowledge', { token: b.token, body: { title: 'B', source: 'text', content: sentence } }), 201)
  for (const mode of ['text', 'vector', 'hybrid']) {
    assert.equal((await search(svc, a.token, { query: sentence, mode, minScore: 0 })).results.map((x: any) => x.id), [ea.id])
    assert.equal((await search(svc, b.token, { query: sentence, mode, minScore: 0 })).results.map((x: any) => x.id), [eb.id])
  }
})

test('citations: each served result counts once per search; searches counted in statistics', async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  const e = ok(await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: 'cited', source: 'text', content: 'Gobbledygook citations accumulate.' } }), 201)
  ok(await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: 'other', source: 'text', content: 'Unrelated words entirely.' } }), 201)
  for (let i = 0; i < 3; i++) await search(svc, w.token, { query: 'gobbledygook', mode: 'text', minScore: 0 })
  await search(svc, w.token, { query: 'nothing matches zzzqqq', mode: 'text', minScore: 0 })
  await svc.deps.runner.waitFor(await svc.deps.store.headPosition(), 5000)
  const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: w.token }))
  assert.is(got.citedCount, 3)
  assert.is(ok(await svc.call('GET', '/api/v1/knowledge/stats', { token: w.token })).stats.recentActivity.searchesLast24h, 4)
  const events = ok(await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=100', { token: w.token })).events
  assert.is(events.length, 4)
})

test('vector falls back to text when the workspace has no embeddings, and says so', async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { ingestion: { autoEmbed: false } } }))
  const e = ok(await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: 'plain', source: 'text', content: 'Snollygoster appears here.' } }), 201)
  for (const mode of ['vector', 'hybrid']) {
    const r = await search(svc, w.token, { query: 'snollygoster', mode, minScore: 0 })
    assert.is(r.mode, 'text')
    assert.match(r.fallback, /no embeddings/)
    assert.equal(r.results.map((x: any) => x.id), [e.id])
  }
})

test('validation, a disabled knowledge base, and permissions', async ({ svc, m }) => {
  const bad = async (body: object, field: string) => {
    const e = expectError(await svc.call('POST', '/api/v1/knowledge/search', { token: m.token, body }), 400, 'VALIDATION_ERROR')
    assert.ok(e.details!.some((d) => d.startsWith(`${field}:`)), JSON.stringify(e.details))
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
  expectError(await svc.call('POST', '/api/v1/knowledge/search', { token: off.token, body: { query: 'vacuum' } }), 403, 'FORBIDDEN')
})

test('citations are appended after the answer (batched), and a graceful stop appends those still waiting', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-citations-'))
  let svc = await startTestService({}, undefined, { dataDir })
  try {
    const w = await seedMember(svc.call, 'owner')
    const e = ok(await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: 'cited', source: 'text', content: 'Flibbertigibbet appears here.' } }), 201)
    const served = await Promise.all(Array.from({ length: 5 }, () => search(svc, w.token, { query: 'flibbertigibbet', mode: 'text', minScore: 0 })))
    assert.equal(served.map((r) => r.results.length), [1, 1, 1, 1, 1])
    await svc.stop()
    svc = await startTestService({}, undefined, { dataDir })
    const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: w.token }))
    assert.is(got.citedCount, 5, 'every search answered before the stop is counted')
    const recorded = ok(await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=100', { token: w.token })).events
    assert.is(recorded.length, 5)
  } finally {
    await svc.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test.run()
