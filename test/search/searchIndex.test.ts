import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type SearchContext, search, startWithCorpus } from '../helpers/searchCorpus'
import { ok, seedMember } from '../helpers/service'

const test = suite<SearchContext>('API: search (the index follows writes)')
test.before(startWithCorpus)
test.after(async ({ svc }) => svc.stop())

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

test.run()
