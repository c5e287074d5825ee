import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member; ids: Record<string, string> }>('API: search')

const corpus: Record<string, { content: string; source?: string; metadata?: object }> = {
  vacuum: {
    content:
      'Vacuum reclaims storage occupied by dead tuples. Autovacuum launches workers that vacuum tables automatically.',
    metadata: { category: 'maintenance', tags: ['pg', 'ops'] },
  },
  indexes: {
    content: 'A B-tree index speeds up equality and range queries. Indexes cost writes and storage.',
    source: 'faq',
    metadata: { category: 'performance', tags: ['pg'] },
  },
  wal: {
    content:
      'The write-ahead log records every change before it reaches the data files, so a crash can be replayed. ' +
      'Checkpoints flush the log.',
    metadata: { category: 'maintenance', tags: ['ops'] },
  },
  weather: {
    content: 'It is sunny and warm today with a light breeze from the west and no rain expected.',
    metadata: { category: 'misc' },
  },
  zebra: {
    content: 'The quokkasaurus is a rare term that appears in exactly one entry about tuples.',
    metadata: { category: 'misc' },
  },
  long: {
    content:
      `${'Filler sentence about nothing in particular. '.repeat(60)}Vacuum freezing prevents transaction id ` +
      `wraparound in the tuples. ${'More filler text to pad the entry. '.repeat(60)}`,
    metadata: { category: 'maintenance' },
  },
}

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.ids = {}
  for (const [title, e] of Object.entries(corpus)) {
    const body = {
      title,
      source: e.source ?? 'text',
      content: e.content,
      metadata: e.metadata ?? {},
      chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 10 },
    }
    ctx.ids[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
})
test.after(async ({ svc }) => svc.stop())

const search = async (svc: TestService, token: string, body: object) =>
  ok(await svc.call('POST', '/api/v1/knowledge/search', { token, body }))

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

test(
  'the endpoint takes mode, limit and minScore from the workspace where it set them, its own defaults ' + 'elsewhere',
  async ({ svc }) => {
    const w = await seedMember(svc.call, 'owner')
    for (let i = 0; i < 4; i++) {
      ok(
        await svc.call('POST', '/api/v1/knowledge', {
          token: w.token,
          body: { title: `t${i}`, source: 'text', content: `Grommet number ${i} fits the flange.` },
        }),
        201,
      )
    }
    // Nothing set: hybrid, 5, 0.5.
    const d = await search(svc, w.token, { query: 'grommet flange' })
    assert.is(d.mode, 'hybrid')
    assert.ok(d.results.every((x: any) => x.score >= 0.5))
    ok(
      await svc.call('PATCH', '/api/v1/knowledge/config', {
        token: w.token,
        body: { search: { defaultMode: 'text', defaultLimit: 2, minScore: 0 } },
      }),
    )
    const set = await search(svc, w.token, { query: 'grommet flange' })
    assert.is(set.mode, 'text')
    assert.is(set.results.length, 2)
    // What the request says wins.
    const asked = await search(svc, w.token, { query: 'grommet flange', mode: 'hybrid', limit: 3 })
    assert.is(asked.mode, 'hybrid')
    assert.is(asked.results.length, 3)
    // A setting set to the value it had is set all the same: the configuration's 0.7, not the endpoint's 0.5.
    const v = await seedMember(svc.call, 'owner')
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: v.token,
        body: { title: 'g', source: 'text', content: 'Grommet fits the flange.' },
      }),
      201,
    )
    ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: v.token, body: { search: { minScore: 0.7 } } }))
    const strict = await search(svc, v.token, { query: 'grommet flange washer bolt nut' })
    assert.ok(strict.results.every((x: any) => x.score >= 0.7))
    const loose = await search(svc, v.token, { query: 'grommet flange washer bolt nut', minScore: 0 })
    assert.ok(loose.results.length >= strict.results.length)
  },
)

test("search.fusion rrf orders hybrid by the legs' ranks and still serves calibrated scores", async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  for (const [t, c] of [
    ['a', 'Sprocket chains drive the rear wheel.'],
    ['b', 'A sprocket is a toothed wheel.'],
    ['c', 'Chains and wheels of bicycles.'],
  ]) {
    ok(
      await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: t, source: 'text', content: c } }),
      201,
    )
  }
  const byScore = await search(svc, w.token, { query: 'sprocket wheel chains', mode: 'hybrid', minScore: 0 })
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { search: { fusion: 'rrf' } } }))
  assert.is(ok(await svc.call('GET', '/api/v1/knowledge/config', { token: w.token })).config.search.fusion, 'rrf')
  const byRank = await search(svc, w.token, { query: 'sprocket wheel chains', mode: 'hybrid', minScore: 0 })
  const rrf = (x: any) =>
    (x.ranks.text ? 1 / (60 + x.ranks.text) : 0) + (x.ranks.vector ? 1 / (60 + x.ranks.vector) : 0)
  for (let i = 1; i < byRank.results.length; i++) assert.ok(rrf(byRank.results[i - 1]) >= rrf(byRank.results[i]))
  const scoreOf = new Map(byScore.results.map((x: any) => [x.id, x.score]))
  for (const x of byRank.results) assert.is(x.score, scoreOf.get(x.id))
  expectError(
    await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { search: { fusion: 'borda' } } }),
    400,
    'VALIDATION_ERROR',
  )
})

test('term statistics follow every write: they equal a count over the rows after creates, changes and deletes', async ({
  svc,
  m,
}) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Stat entry', source: 'text', content: 'Counting lexemes counts lexemes.' },
    }),
    201,
  )
  ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: m.token,
      body: { title: 'Stats entry renamed', content: 'Recount the lexemes after a change.' },
    }),
  )
  const gone = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Gone', source: 'text', content: 'Deleted lexemes leave.' },
    }),
    201,
  )
  ok(await svc.call('DELETE', `/api/v1/knowledge/${gone.id}`, { token: m.token }))
  const q = async (sql: string) => (await svc.deps.db.pool.query(sql, [m.workspaceId])).rows
  const kept = await q(`SELECT field, lexeme, df FROM kb_chunk_terms WHERE workspace_id = $1 AND df <> 0 ORDER BY 1, 2`)
  const recount = await q(`
    SELECT 'body' AS field, k AS lexeme, count(*)::int AS df FROM kb_chunk_entries,
      jsonb_object_keys(body_tf) k WHERE workspace_id = $1 GROUP BY k
    UNION ALL SELECT 'chunk', k, count(*)::int FROM kb_chunks,
      jsonb_object_keys(tf) k WHERE workspace_id = $1 GROUP BY k
    UNION ALL SELECT 'title', k, count(*)::int FROM kb_chunk_entries,
      jsonb_object_keys(title_tf) k WHERE workspace_id = $1 GROUP BY k
    ORDER BY 1, 2`)
  assert.equal(kept, recount)
  const fields = await q(
    'SELECT field, docs, total_len::int AS len FROM kb_chunk_fields WHERE workspace_id = $1 ORDER BY 1',
  )
  const totals = await q(`
    SELECT 'body' AS field, count(*)::int AS docs,
      sum(body_len)::int AS len FROM kb_chunk_entries WHERE workspace_id = $1
    UNION ALL SELECT 'chunk', count(*)::int, sum(len)::int FROM kb_chunks WHERE workspace_id = $1
    UNION ALL SELECT 'title', count(*)::int,
      sum(title_len)::int FROM kb_chunk_entries WHERE workspace_id = $1 ORDER BY 1`)
  assert.equal(fields, totals)
  assert.not.ok(
    kept.some((r: any) => r.lexeme === 'delet'),
    "a deleted entry's lexemes are gone",
  )
})

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

test('filters source, category and tag, alone and combined', async ({ svc, m, ids }) => {
  const q = (f: object) =>
    search(svc, m.token, { query: 'vacuum index log tuples storage', mode: 'text', minScore: 0, limit: 50, ...f }).then(
      (r) => r.results.map((x: any) => x.id).sort(),
    )
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
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title: `near ${i}`, source: 'text', content: `Checkpoint tuning for the write ahead log ${i}.` },
      }),
      201,
    )
  }
  for (let i = 0; i < 8; i++) {
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: {
          title: `far ${i}`,
          source: 'text',
          content: `Gardening roses in spring number ${i}.`,
          metadata: { tags: ['rare'] },
        },
      }),
      201,
    )
  }
  const r = await search(svc, w.token, {
    query: 'checkpoint tuning write ahead log',
    mode: 'vector',
    tag: 'rare',
    limit: 8,
    minScore: 0,
  })
  assert.is(r.mode, 'vector')
  assert.is(r.results.length, 8)
  assert.ok(r.results.every((x: any) => x.title.startsWith('far')))
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

test('a disabled or deleted entry never appears, right after the write that removed it', async ({ svc, m }) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'ephemeral', source: 'text', content: 'Xylophonic marmalade is ephemeral.' },
    }),
    201,
  )
  const find = async () =>
    (await search(svc, m.token, { query: 'xylophonic marmalade', mode: 'hybrid', minScore: 0 })).results.map(
      (x: any) => x.id,
    )
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
  const ea = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: a.token,
      body: { title: 'A', source: 'text', content: sentence },
    }),
    201,
  )
  const eb = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: b.token,
      body: { title: 'B', source: 'text', content: sentence },
    }),
    201,
  )
  for (const mode of ['text', 'vector', 'hybrid']) {
    assert.equal(
      (await search(svc, a.token, { query: sentence, mode, minScore: 0 })).results.map((x: any) => x.id),
      [ea.id],
    )
    assert.equal(
      (await search(svc, b.token, { query: sentence, mode, minScore: 0 })).results.map((x: any) => x.id),
      [eb.id],
    )
  }
})

test('citations: each served result counts once per search; searches counted in statistics', async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: w.token,
      body: { title: 'cited', source: 'text', content: 'Gobbledygook citations accumulate.' },
    }),
    201,
  )
  ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: w.token,
      body: { title: 'other', source: 'text', content: 'Unrelated words entirely.' },
    }),
    201,
  )
  for (let i = 0; i < 3; i++) await search(svc, w.token, { query: 'gobbledygook', mode: 'text', minScore: 0 })
  await search(svc, w.token, { query: 'nothing matches zzzqqq', mode: 'text', minScore: 0 })
  // Records are appended after the answers: a read asked to settle counts them all.
  const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}?settle=true`, { token: w.token }))
  assert.is(got.citedCount, 3)
  assert.is(
    ok(await svc.call('GET', '/api/v1/knowledge/stats', { token: w.token })).stats.recentActivity.searchesLast24h,
    4,
  )
  const events = ok(
    await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=100', { token: w.token }),
  ).events
  assert.is(events.length, 4)
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

test('citations are appended after the answer (batched), and a graceful stop appends those still waiting', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-citations-'))
  let svc = await startTestService({}, undefined, { dataDir })
  try {
    const w = await seedMember(svc.call, 'owner')
    const e = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title: 'cited', source: 'text', content: 'Flibbertigibbet appears here.' },
      }),
      201,
    )
    const served = await Promise.all(
      Array.from({ length: 5 }, () => search(svc, w.token, { query: 'flibbertigibbet', mode: 'text', minScore: 0 })),
    )
    assert.equal(
      served.map((r) => r.results.length),
      [1, 1, 1, 1, 1],
    )
    await svc.stop()
    svc = await startTestService({}, undefined, { dataDir })
    const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: w.token }))
    assert.is(got.citedCount, 5, 'every search answered before the stop is counted')
    const recorded = ok(
      await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=100', { token: w.token }),
    ).events
    assert.is(recorded.length, 5)
  } finally {
    await svc.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test.run()
