import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokens } from '../../adapters/text'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member }>('API: knowledge entries (text path): create, chunk, read')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const text = 'Postgres stores rows in heap pages. Vacuum reclaims dead tuples. '.repeat(120)

test('create with source text is synchronous: completed, 100, chunked and embedded before the answer', async ({
  svc,
  m,
}) => {
  const r = await svc.call('POST', '/api/v1/knowledge', {
    token: m.token,
    body: {
      title: '  Heap pages  ',
      source: 'text',
      content: text,
      metadata: { category: 'db', tags: ['pg'], team: 'storage' },
      chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 20 },
    },
  })
  const e = ok(r, 201)
  assert.is(e.title, 'Heap pages')
  assert.is(e.source, 'manual')
  assert.is(e.processingStatus, 'completed')
  assert.is(e.processingProgress, 100)
  assert.is(e.content, text)
  assert.is(e.isEnabled, true)
  // Keys of the team's own are kept beside category, tags and author.
  assert.equal(e.metadata, { category: 'db', tags: ['pg'], team: 'storage' })
  assert.ok(e.tokenCount > 1000)
  assert.match(e.searchableText, /^postgres stores rows in heap pages vacuum/)
  assert.not.ok('folderId' in e)
  assert.not.ok('storageInfo' in e)
  assert.not.ok('syncConfig' in e)
  assert.is(e.createdBy, m.userId)
  assert.ok(e.createdAt && e.updatedAt)
  assert.is(r.headers.get('x-read-models-lag'), null)
  const { rows } = await svc.deps.db.pool.query(
    'SELECT chunk_index, token_count FROM kb_chunks WHERE entry_id = $1 ORDER BY chunk_index',
    [e.id],
  )
  assert.ok(rows.length > 10)
  assert.ok(rows.every((c: any) => c.token_count <= 100))
  // Vectors are of passages the model reads whole, every chunk stood for by at least one.
  const { rows: passages } = await svc.deps.db.pool.query(
    'SELECT chunk_index, model, embedding IS NOT NULL AS has_vector FROM kb_passages WHERE entry_id = $1',
    [e.id],
  )
  assert.ok(passages.length >= rows.length)
  assert.ok(passages.every((p: any) => p.has_vector && p.model === 'hashing-v1'))
  assert.equal(
    [...new Set(passages.map((p: any) => p.chunk_index))].sort((a: any, b: any) => a - b),
    rows.map((c: any) => c.chunk_index),
  )
})

test(
  'text without sentence ends (a log, a table) fills chunks to their budget and counts its tokens as ' + 'cl100k does',
  async ({ svc }) => {
    const m = await seedMember(svc.call)
    // Some words cost more tokens at the start of a chunk than after a space ("retrieval": 3, " retrieval": 1).
    const words = [
      'alpha',
      'retrieval',
      'stone',
      'quickly',
      'ingestion',
      'seven',
      'garden',
      'planet',
      'yellow',
      'history',
    ]
    const content = Array.from({ length: 4000 }, (_, i) => words[(i * 7 + (i >> 3)) % words.length]).join(' ')
    const exact = countTokens(content)
    const e = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: {
          title: 'Unpunctuated',
          source: 'text',
          content,
          chunkingOptions: { chunkSizeTokens: 1000, overlapTokens: 0 },
        },
      }),
      201,
    )
    assert.ok(Math.abs(e.tokenCount - exact) / exact < 0.02, `estimated ${e.tokenCount}, exact ${exact}`)
    const { rows } = await svc.deps.db.pool.query(
      'SELECT token_count FROM kb_chunks WHERE entry_id = $1 ORDER BY chunk_index',
      [e.id],
    )
    assert.is(rows.length, Math.ceil(exact / 1000), JSON.stringify(rows))
    assert.ok(
      rows.slice(0, -1).every((c: any) => c.token_count > 950 && c.token_count <= 1000),
      JSON.stringify(rows),
    )
  },
)

test("an entry's chunks, in order, cover its content; another workspace's entry is not found", async ({ svc, m }) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: {
        title: 'Chunked',
        source: 'text',
        content: text,
        chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 0 },
      },
    }),
    201,
  )
  const { items } = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}/chunks`, { token: m.token }))
  assert.ok(items.length > 1)
  assert.equal(
    items.map((c: any) => c.index),
    items.map((_: unknown, i: number) => i),
  )
  for (const c of items) {
    assert.is(c.content, text.slice(c.start, c.end))
    assert.ok(c.tokenCount > 0 && c.tokenCount <= 100)
  }
  const other = await seedMember(svc.call, 'owner')
  expectError(await svc.call('GET', `/api/v1/knowledge/${e.id}/chunks`, { token: other.token }), 404, 'NOT_FOUND')
})

test('content that spells a tokenizer special token is stored and counted as text', async ({ svc, m }) => {
  const content = 'A model stops at <|endoftext|> and <|fim_prefix|> marks a prefix.'
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Special tokens', source: 'text', content },
    }),
    201,
  )
  assert.is(e.content, content)
  // As text, `<|endoftext|>` is several tokens, not the one special token.
  assert.ok(e.tokenCount > 16, String(e.tokenCount))
})

test('legacy sources are stored as given; every entry field is echoed on GET', async ({ svc, m }) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'FAQ', source: 'faq', content: 'Q? A.', externalReferenceIds: { crm: 'C-1', ticket: 'T-9' } },
    }),
    201,
  )
  assert.is(e.source, 'faq')
  const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token }))
  assert.equal(got.externalReferenceIds, { crm: 'C-1', ticket: 'T-9' })
  assert.is(got.workspaceId, m.workspaceId)
})

test(
  'the largest content allowed (500,000 characters) is accepted even written as JSON escapes; ' +
    'chunkSizeTokens alone picks an overlap below it',
  async ({ svc, m }) => {
    // 500,000 characters as \u00e9 escapes: a 3 MB body.
    const raw = `{"title":"escaped","source":"text","content":"${'\\u00e9'.repeat(499_990)} end"}`
    assert.ok(raw.length > 2_900_000)
    const big = ok(await svc.call('POST', '/api/v1/knowledge', { token: m.token, raw }), 201)
    assert.is(big.content.length, 499_994)
    // The default overlap (200) is not below 100 tokens: the same share of the chunk is used.
    const small = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: {
          title: 'small chunks',
          source: 'text',
          content: 'Word '.repeat(400),
          chunkingOptions: { chunkSizeTokens: 100 },
        },
      }),
      201,
    )
    assert.is(small.processingStatus, 'completed')
    const { rows } = await svc.deps.db.pool.query<{ s: number; e: number; n: number }>(
      'SELECT start_offset AS s, end_offset AS e, token_count AS n FROM kb_chunks WHERE entry_id = $1 ORDER BY ' +
        'chunk_index',
      [small.id],
    )
    assert.ok(rows.length > 1 && rows.every((r) => r.n <= 100), JSON.stringify(rows))
    // Consecutive chunks overlap, by at most 20 tokens (a fifth of the chunk, as 200 is of 1000).
    for (let i = 1; i < rows.length; i++) {
      assert.ok(rows[i].s < rows[i - 1].e, JSON.stringify(rows))
      assert.ok(countTokens(small.content.slice(rows[i].s, rows[i - 1].e)) <= 20)
    }
  },
)

test('content the chunking worker cannot finish within its limits is refused with 400, not a 500', async () => {
  const svc = await startTestService({ PARSE_TIMEOUT_MS: '100' })
  try {
    const m = await seedMember(svc.call, 'owner')
    const head = await svc.deps.store.headPosition()
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 't', source: 'text', content: 'Some text, of several words. '.repeat(16_000) },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assert.match(e.details![0], /^content: chunking took longer than 100 ms/)
    assert.is(await svc.deps.store.headPosition(), head)
  } finally {
    await svc.stop()
  }
})

test.run()
