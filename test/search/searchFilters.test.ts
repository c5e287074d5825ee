import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type SearchContext, search, startWithCorpus } from '../helpers/searchCorpus'
import { ok, seedMember } from '../helpers/service'

const test = suite<SearchContext>('API: search (filters)')
test.before(startWithCorpus)
test.after(async ({ svc }) => svc.stop())

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

test.run()
