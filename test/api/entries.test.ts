import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokens } from '../../adapters/text'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member }>('API: knowledge entries (text path)')
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
      metadata: { category: 'db', tags: ['pg'], junk: 'x' },
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
  assert.equal(e.metadata, { category: 'db', tags: ['pg'] })
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

test('list: newest first, filters, externalRef.<key>, pagination object', async ({ svc }) => {
  const w = await seedMember(svc.call, 'editor')
  const mk = (title: string, extra: object = {}) =>
    svc
      .call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title, source: 'text', content: `${title} body.`, ...extra },
      })
      .then((r) => ok(r, 201))
  const a = await mk('Alpha guide', {
    metadata: { category: 'guides', tags: ['x', 'y'] },
    externalReferenceIds: { crm: 'A' },
  })
  const b = await mk('Beta notes', {
    source: 'transcript',
    metadata: { tags: ['y'] },
    externalReferenceIds: { crm: 'B', zone: 'eu' },
  })
  const c = await mk('Gamma 100%_done', { isEnabled: false })
  const list = async (q: string) => ok(await svc.call('GET', `/api/v1/knowledge${q}`, { token: w.token }))
  const all = await list('')
  assert.equal(
    all.items.map((e: any) => e.id),
    [c.id, b.id, a.id],
  )
  assert.equal(all.pagination, { page: 1, limit: 20, total: 3, totalPages: 1, hasNext: false, hasPrev: false })
  assert.equal(
    (await list('?source=transcript')).items.map((e: any) => e.id),
    [b.id],
  )
  assert.equal(
    (await list('?category=guides')).items.map((e: any) => e.id),
    [a.id],
  )
  assert.equal(
    (await list('?tag=y')).items.map((e: any) => e.id),
    [b.id, a.id],
  )
  assert.equal(
    (await list('?isEnabled=false')).items.map((e: any) => e.id),
    [c.id],
  )
  assert.equal(
    (await list('?search=GUIDE')).items.map((e: any) => e.id),
    [a.id],
  )
  assert.equal(
    (await list('?search=100%25_')).items.map((e: any) => e.id),
    [c.id],
  )
  assert.equal(
    (await list('?search=%25')).items.map((e: any) => e.id),
    [c.id],
  )
  assert.equal(
    (await list('?externalRef.crm=B')).items.map((e: any) => e.id),
    [b.id],
  )
  assert.equal(
    (await list('?externalRef.crm=B&externalRef.zone=eu')).items.map((e: any) => e.id),
    [b.id],
  )
  assert.equal((await list('?externalRef.crm=B&externalRef.zone=us')).items, [])
  assert.equal((await list('?freshness=current')).total, 3)
  assert.equal((await list('?freshness=stale')).total, 0)
  const p2 = await list('?limit=2&page=2')
  assert.equal(
    p2.items.map((e: any) => e.id),
    [a.id],
  )
  assert.equal(p2.pagination, { page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true })
})

test('patch: only supplied fields change; content re-chunks, re-embeds and regenerates searchableText', async ({
  svc,
  m,
}) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Patch me', source: 'text', content: 'Old words here.', metadata: { category: 'a', tags: ['t'] } },
    }),
    201,
  )
  const before = await svc.deps.db.pool.query('SELECT content FROM kb_chunks WHERE entry_id = $1', [e.id])
  const p = ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: m.token,
      body: { content: 'Brand NEW text about Vacuum.', metadata: { author: 'Ann' } },
    }),
  )
  assert.is(p.title, 'Patch me')
  assert.equal(p.metadata, { category: 'a', tags: ['t'], author: 'Ann' })
  assert.is(p.searchableText, 'brand new text about vacuum')
  const after = await svc.deps.db.pool.query('SELECT content FROM kb_chunks WHERE entry_id = $1', [e.id])
  assert.equal(
    before.rows.map((r: any) => r.content),
    ['Old words here.'],
  )
  assert.equal(
    after.rows.map((r: any) => r.content),
    ['Brand NEW text about Vacuum.'],
  )
  // The title is part of what each passage embeds: renaming re-embeds.
  const vector = async () =>
    (await svc.deps.db.pool.query('SELECT embedding::text AS v FROM kb_passages WHERE entry_id = $1', [e.id])).rows[0].v
  const beforeRename = await vector()
  const off = ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: m.token,
      body: { isEnabled: false, title: 'Renamed' },
    }),
  )
  assert.is.not(await vector(), beforeRename)
  assert.is(off.isEnabled, false)
  assert.is(off.title, 'Renamed')
  assert.is(off.content, 'Brand NEW text about Vacuum.')
})

test('delete removes entry, chunks and its content from the event store; a second delete is 404', async ({
  svc,
  m,
}) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Secret', source: 'text', content: 'the launch code is 0000' },
    }),
    201,
  )
  assert.equal(ok(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token })), {
    deleted: true,
    id: e.id,
  })
  expectError(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token }), 404, 'NOT_FOUND')
  expectError(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token }), 404, 'NOT_FOUND')
  const chunks = await svc.deps.db.pool.query('SELECT count(*)::int AS n FROM kb_chunks WHERE entry_id = $1', [e.id])
  assert.is(chunks.rows[0].n, 0)
  const leaks = await svc.deps.db.pool.query(
    "SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%launch code%'",
  )
  assert.is(leaks.rows[0].n, 0)
  const audit = await svc.deps.db.pool.query(
    "SELECT count(*)::int AS n FROM audit_events WHERE data::text LIKE '%launch code%'",
  )
  assert.is(audit.rows[0].n, 0)
  const tomb = await svc.deps.store.readStream(`entry-${e.id}`)
  assert.equal(
    tomb.map((x) => x.type),
    ['EntryDeleted'],
  )
  assert.is((tomb[0].data as any).deletedBy, m.userId)
})

test('move to a folder and back to root; verify sets verified.at', async ({ svc, m }) => {
  const f = ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Moves' } }), 201)
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Mover', source: 'text', content: 'x.' },
    }),
    201,
  )
  assert.equal(
    ok(await svc.call('POST', `/api/v1/knowledge/${e.id}/move`, { token: m.token, body: { folderId: f.id } })),
    { id: e.id, folderId: f.id, previousFolderId: null },
  )
  assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })).folderId, f.id)
  assert.equal(
    ok(await svc.call('POST', `/api/v1/knowledge/${e.id}/move`, { token: m.token, body: { folderId: null } })),
    { id: e.id, folderId: null, previousFolderId: f.id },
  )
  assert.not.ok('folderId' in ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })))
  const v = ok(await svc.call('POST', `/api/v1/knowledge/${e.id}/verify`, { token: m.token }))
  assert.is(v.verified.by, m.userId)
  assert.ok(Date.now() - Date.parse(v.verified.at) < 60_000)
})

test('a viewer reads but every write is 403 FORBIDDEN', async ({ svc, m }) => {
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  ok(await svc.call('GET', '/api/v1/knowledge', { token: viewer.token }))
  const head = await svc.deps.store.headPosition()
  expectError(
    await svc.call('POST', '/api/v1/knowledge', {
      token: viewer.token,
      body: { title: 'x', source: 'text', content: 'y' },
    }),
    403,
    'FORBIDDEN',
  )
  expectError(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: viewer.token, body: { name: 'v' } }),
    403,
    'FORBIDDEN',
  )
  assert.is(await svc.deps.store.headPosition(), head)
})

test('workspace isolation: another workspace reads, changes and moves nothing; its ids are 404', async ({ svc, m }) => {
  const other = await seedMember(svc.call, 'owner')
  const mine = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Mine', source: 'text', content: 'mine.' },
    }),
    201,
  )
  const theirFolder = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Theirs' } }),
    201,
  )
  expectError(await svc.call('GET', `/api/v1/knowledge/${mine.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('PATCH', `/api/v1/knowledge/${mine.id}`, { token: other.token, body: { title: 'hijack' } }),
    404,
    'NOT_FOUND',
  )
  expectError(await svc.call('DELETE', `/api/v1/knowledge/${mine.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('POST', `/api/v1/knowledge/${mine.id}/move`, { token: other.token, body: { folderId: null } }),
    404,
    'NOT_FOUND',
  )
  expectError(await svc.call('POST', `/api/v1/knowledge/${mine.id}/verify`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('POST', `/api/v1/knowledge/${mine.id}/move`, { token: m.token, body: { folderId: theirFolder.id } }),
    404,
    'NOT_FOUND',
  )
  expectError(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'x', source: 'text', content: 'y', folderId: theirFolder.id },
    }),
    404,
    'NOT_FOUND',
  )
  assert.not.ok(
    ok(await svc.call('GET', '/api/v1/knowledge', { token: other.token })).items.some((e: any) => e.id === mine.id),
  )
  assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${mine.id}`, { token: m.token })).title, 'Mine')
})

test('bad input: each gives 400 VALIDATION_ERROR naming the field, and writes nothing', async ({ svc, m }) => {
  const head = await svc.deps.store.headPosition()
  const bad = async (body: object, field: string) => {
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge', { token: m.token, body }),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      e.details!.some((d) => d.startsWith(`${field}:`)),
      `${field} in ${JSON.stringify(e.details)}`,
    )
  }
  await bad({ source: 'text', content: 'x' }, 'title')
  await bad({ title: '', source: 'text', content: 'x' }, 'title')
  await bad({ title: 'x'.repeat(501), source: 'text', content: 'x' }, 'title')
  await bad({ title: 't', source: 'text' }, 'content')
  await bad({ title: 't', source: 'text', content: 'x'.repeat(500_001) }, 'content')
  await bad({ title: 't', source: 'pdf', content: 'x' }, 'source')
  await bad(
    { title: 't', source: 'text', content: 'x', chunkingOptions: { chunkSizeTokens: 99 } },
    'chunkingOptions.chunkSizeTokens',
  )
  await bad(
    { title: 't', source: 'text', content: 'x', chunkingOptions: { overlapTokens: 501 } },
    'chunkingOptions.overlapTokens',
  )
  await bad(
    { title: 't', source: 'text', content: 'x', chunkingOptions: { chunkSizeTokens: 200, overlapTokens: 200 } },
    'chunkingOptions.overlapTokens',
  )
  await bad({ title: 't', source: 'text', content: 'x', externalReferenceIds: { crm: 5 } }, 'externalReferenceIds')
  await bad({ title: 't', source: 'text', content: 'x', externalReferenceIds: ['a'] }, 'externalReferenceIds')
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'ok', source: 'text', content: 'ok' },
    }),
    201,
  )
  const afterCreate = await svc.deps.store.headPosition()
  const patch = expectError(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, { token: m.token, body: { content: 'x'.repeat(100_001) } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.match(patch.details![0], /^content:/)
  expectError(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 't', source: 'text', content: 'x', folderId: 'no-such-folder' },
    }),
    404,
    'NOT_FOUND',
  )
  const list = async (q: string, field: string) => {
    const err = expectError(await svc.call('GET', `/api/v1/knowledge${q}`, { token: m.token }), 400, 'VALIDATION_ERROR')
    assert.ok(
      err.details!.some((d) => d.startsWith(`${field}:`)),
      `${field} in ${JSON.stringify(err.details)}`,
    )
  }
  await list('?limit=0', 'limit')
  await list('?limit=101', 'limit')
  await list('?page=0', 'page')
  await list('?freshness=ancient', 'freshness')
  await list('?source=text', 'source')
  await list('?externalRef.crm=a&externalRef.crm=b', 'externalRef.crm')
  expectError(await svc.call('GET', '/api/v1/knowledge/unknown-id', { token: m.token }), 404, 'NOT_FOUND')
  assert.is(await svc.deps.store.headPosition(), afterCreate)
  assert.ok(afterCreate > head)
})

test(
  'input no command can store is refused with 400, never a 500: lone surrogates, deep nesting, a body that ' +
    'is not JSON',
  async ({ svc, m }) => {
    const e = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 'kept', source: 'text', content: 'kept.' },
      }),
      201,
    )
    const head = await svc.deps.store.headPosition()
    const bad = async (
      method: string,
      path: string,
      options: { body?: unknown; raw?: string; headers?: Record<string, string> },
      detail: RegExp,
    ) => {
      const err = expectError(await svc.call(method, path, { token: m.token, ...options }), 400, 'VALIDATION_ERROR')
      assert.ok(
        err.details!.some((d) => detail.test(d)),
        `${detail} in ${JSON.stringify(err.details)}`,
      )
    }
    // Half of an emoji: JSON allows it, Postgres's JSON does not.
    await bad(
      'POST',
      '/api/v1/knowledge',
      { body: { title: 'lone', source: 'text', content: 'a\ud800b' } },
      /^content: .*surrogate/,
    )
    await bad('PATCH', `/api/v1/knowledge/${e.id}`, { body: { title: 'x\udc00' } }, /^title: .*surrogate/)
    await bad(
      'POST',
      '/api/v1/knowledge',
      { body: { title: 't', source: 'text', content: 'c', metadata: { ['k\ud800']: 'v' } } },
      /^metadata\.k.*surrogate/,
    )
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`
    await bad(
      'POST',
      '/api/v1/knowledge',
      { raw: `{"title":"t","source":"text","content":"c","metadata":{"deep":${deep}}}` },
      /nested deeper than 32 levels/,
    )
    // A PATCH whose body the JSON parser did not read must not pass for an empty one.
    await bad(
      'PATCH',
      `/api/v1/knowledge/${e.id}`,
      { raw: JSON.stringify({ title: 'via text/plain' }), headers: { 'content-type': 'text/plain' } },
      /^body: .*application\/json/,
    )
    await bad(
      'PATCH',
      '/api/v1/knowledge/config',
      { raw: JSON.stringify({ maxDocuments: 5 }), headers: { 'content-type': 'text/plain' } },
      /^body:/,
    )
    // Nor a create's, on the routes that take a multipart form too.
    const created = JSON.stringify({ title: 'via text/plain', source: 'text', content: 'c' })
    await bad(
      'POST',
      '/api/v1/knowledge',
      { raw: created, headers: { 'content-type': 'text/plain' } },
      /^body: .*application\/json or multipart\/form-data/,
    )
    await bad(
      'POST',
      '/api/v1/knowledge',
      { raw: 'title=t&source=text&content=c', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      /^body:/,
    )
    await bad(
      'POST',
      '/api/v1/knowledge/upload',
      { raw: JSON.stringify({ sourceType: 'text', content: 'c' }), headers: { 'content-type': 'text/plain' } },
      /^body: .*application\/json$/,
    )
    await bad(
      'POST',
      '/api/v1/knowledge/upload/file',
      { raw: 'x', headers: { 'content-type': 'text/plain' } },
      /^body: .*multipart/,
    )
    assert.is(await svc.deps.store.headPosition(), head)
    assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })).title, 'kept')
    // A well-formed emoji is fine, and counts as one character.
    const emoji = '\u{1F600}'
    const smiles = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: emoji.repeat(500), source: 'text', content: `${emoji} fine` },
      }),
      201,
    )
    assert.is([...smiles.title].length, 500)
    await bad(
      'POST',
      '/api/v1/knowledge',
      { body: { title: emoji.repeat(501), source: 'text', content: 'c' } },
      /^title:/,
    )
  },
)

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
