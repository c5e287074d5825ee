import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import { exactVectorSearch } from '../../adapters/vectorIndex'
import { freshPostgres, serverUrl } from '../../testkit/db'

// Vector search where vectors are real[] (a server without pgvector): every row compared, exactly.
const test = suite<{ db: Database }>('exact vector scan over real[]')

const pad = (v: number[], n = 8) => [...v, ...Array(n - v.length).fill(0)]
const cosine = (a: number[], b: number[]) => {
  const dot = a.reduce((s, x, i) => s + x * b[i], 0)
  const len = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return dot / (len(a) * len(b))
}

if (!serverUrl) {
  test.skip('exact vector scan (TEST_DATABASE_URL unset)', () => undefined)
} else {
  const server = serverUrl
  test.before(async (ctx) => {
    ctx.db = await freshPostgres(server, 2)
    await ctx.db.pool.query(
      'CREATE TABLE vecs (id text, entry_id text, workspace_id text, model text, embedding real[])',
    )
    const rows: [string, string, string, number[] | null][] = [
      ['a', 'w1', 'm', pad([1, 0, 0])],
      ['b', 'w1', 'm', pad([0.6, 0.8, 0])],
      ['c', 'w1', 'm', pad([0, 0, 2])],
      ['d', 'w1', 'other-model', pad([1, 0, 0])],
      ['e', 'w2', 'm', pad([1, 0, 0])],
      ['z', 'w1', 'm', pad([0, 0, 0])],
      ['n', 'w1', 'm', null],
    ]
    for (const [id, ws, model, v] of rows)
      await ctx.db.pool.query('INSERT INTO vecs VALUES ($1, $1, $2, $3, $4)', [id, ws, model, v])
  })
  test.after(async ({ db }) => db.close())

  test('nearest first by cosine, only the model and scope asked; zero and missing vectors never match', async ({
    db,
  }) => {
    const query = pad([0.9, 0.3, 0.1])
    const search = () =>
      exactVectorSearch(db.pool, {
        table: 'vecs',
        key: 'entry_id',
        vector: query,
        model: 'm',
        dimensions: 8,
        scope: [['workspace_id = ?', 'w1']],
        limit: 10,
      })
    const hits = await search()
    assert.equal(
      hits.map((h) => h.id),
      ['a', 'b', 'c'],
    )
    hits.forEach((h, i) => {
      const v = [pad([1, 0, 0]), pad([0.6, 0.8, 0]), pad([0, 0, 2])][i]
      assert.ok(Math.abs(h.score - cosine(query, v)) < 1e-6, `${h.id}: ${h.score}`)
    })
    // A query of zeros matches nothing.
    assert.equal(
      await exactVectorSearch(db.pool, {
        table: 'vecs',
        key: 'entry_id',
        vector: pad([]),
        model: 'm',
        dimensions: 8,
        scope: [],
        limit: 5,
      }),
      [],
    )
  })
}

test.run()
