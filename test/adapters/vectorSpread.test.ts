import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Database, inTransaction } from '../../adapters/db'
import { embeddingCacheSchema, enableVectors } from '../../adapters/embeddingCache'
import { type VectorQuery, ensureVectorIndex, nearestKeys, nearestRows, vectorColumn } from '../../adapters/vectorIndex'
import { testPglite } from '../../testkit/db'

// Nearest rows of enough distinct keys: one key with hundreds of near-identical rows (a long list)
// beside thirty keys of a row or two each, searched through the HNSW index and compared with the
// exact answer.
const test = suite<{ db: Database }>('vector index: nearest rows of distinct keys')

const DIMENSIONS = 16
const unit = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return v.map((x) => x / n)
}
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)
const QUERY = unit(Array.from({ length: DIMENSIONS }, (_, k) => (k === 0 ? 1 : 0.05)))
// The crowd: 400 rows all nearer the query than any other key's.
const crowd = (i: number) =>
  unit(Array.from({ length: DIMENSIONS }, (_, k) => (k === 0 ? 1 : 0.05 + 0.01 * Math.sin(i + k))))
// The others: spread around, each further from the query than the crowd.
const other = (i: number) =>
  unit(Array.from({ length: DIMENSIONS }, (_, k) => (k === 0 ? 0.6 : Math.cos(i * 1.7 + k * 0.9))))

const rows: Array<{ id: string; key: string; vector: number[] }> = [
  // The others first: written before the crowd, as notes are before a long document.
  ...Array.from({ length: 30 }, (_, i) => ({ id: `o${i}`, key: `note${i}`, vector: other(i) })),
  ...Array.from({ length: 30 }, (_, i) => ({ id: `o${i}b`, key: `note${i}`, vector: other(i + 100) })).slice(0, 10),
  ...Array.from({ length: 400 }, (_, i) => ({ id: `c${i}`, key: 'crowd', vector: crowd(i) })),
]

test.before(async (ctx) => {
  ctx.db = await testPglite()
  await ctx.db.pool.query(embeddingCacheSchema)
  assert.ok(await enableVectors(ctx.db.pool))
  await ctx.db.pool.query(
    `CREATE TABLE vecs (id text PRIMARY KEY, entry_id text, workspace_id text, model text, text_hash text,
       embedding ${vectorColumn(true)})`,
  )
  await ensureVectorIndex(ctx.db.pool, 'vecs', 'm', DIMENSIONS)
  for (const r of rows)
    await ctx.db.pool.query(`INSERT INTO vecs VALUES ($1, $2, 'w', 'm', $1, $3)`, [
      r.id,
      r.key,
      `[${r.vector.join(',')}]`,
    ])
})
test.after(async ({ db }) => db.close())

const query: VectorQuery = {
  table: 'vecs',
  key: 'entry_id',
  vector: QUERY,
  model: 'm',
  dimensions: DIMENSIONS,
  scope: [['workspace_id = ?', 'w']],
  limit: 200,
}

/** The exact answer: each key's best row, keys by it, best first. */
const exactKeys = () => {
  const best = new Map<string, number>()
  for (const r of rows) best.set(r.key, Math.max(best.get(r.key) ?? -1, cosine(r.vector, QUERY)))
  return [...best].sort((a, b) => b[1] - a[1]).map(([key]) => key)
}

test('the nearest 200 rows alone are all of one key', async ({ db }) => {
  const hits = await inTransaction(db.pool, (tx) => nearestRows(tx, true, query))
  assert.equal([...new Set(hits.map((h) => h.key))], ['crowd'])
})

test('gathered by key: every key, at most three rows each, as the exact scan finds them', async ({ db }) => {
  const hits = await inTransaction(db.pool, (tx) => nearestKeys(tx, true, query, { keys: 40, perKey: 3 }))
  const keys = [...new Set(hits.map((h) => h.key))]
  assert.equal(new Set(keys), new Set(exactKeys()), 'recall of distinct keys 1.0 against the exact scan')
  assert.is(keys[0], 'crowd')
  assert.is(hits.filter((h) => h.key === 'crowd').length, 3)
  for (const key of keys) assert.ok(hits.filter((h) => h.key === key).length <= 3)
  for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score, 'best first')
})

test('the scope still applies: a key it leaves out is never gathered', async ({ db }) => {
  const hits = await inTransaction(db.pool, (tx) =>
    nearestKeys(tx, true, { ...query, scope: [...query.scope, "entry_id <> 'crowd'"] }, { keys: 5, perKey: 3 }),
  )
  assert.equal(new Set(hits.map((h) => h.key)), new Set(exactKeys().filter((k) => k !== 'crowd')))
})

test.run()
