import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Database, inTransaction } from '../../adapters/db'
import { embeddingCacheSchema, enableVectors, float4Array } from '../../adapters/embeddingCache'
import { STORED_VECTOR, ensureVectorIndex, nearestRows, vectorColumn } from '../../adapters/vectorIndex'
import { testPglite } from '../../testkit/db'

// Vectors kept at each model's own length in pgvector (PGlite), one HNSW index per model, and a
// history whose open rows keep none (they read the current table's) and whose closed rows keep theirs.
const test = suite<{ db: Database }>('vector index: each model at its own length')

const unit = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return v.map((x) => x / n)
}
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)
// A deterministic spread of vectors of a given length.
const vectorOf = (i: number, length: number) =>
  unit(Array.from({ length }, (_, k) => Math.sin(i * 12.9898 + k * 78.233)))
const SMALL = { model: 'small', dimensions: 12 }
const LARGE = { model: 'large', dimensions: 40 }

test.before(async (ctx) => {
  ctx.db = await testPglite()
  await ctx.db.pool.query(embeddingCacheSchema)
  assert.ok(await enableVectors(ctx.db.pool))
  await ctx.db.pool.query(
    `CREATE TABLE vecs (id text PRIMARY KEY, entry_id text, workspace_id text, model text, text_hash text,
       embedding ${vectorColumn(true)});
     CREATE TABLE vecs_history (id text, entry_id text, workspace_id text, model text, text_hash text,
       valid_from bigint NOT NULL, valid_to bigint, replaced boolean NOT NULL DEFAULT false,
       closed_embedding ${vectorColumn(true)})`,
  )
  // 60 rows of each model, side by side in one column; the history names the small ones' hashes.
  for (const { model, dimensions } of [SMALL, LARGE]) {
    const vectors = Array.from({ length: 60 }, (_, i) => vectorOf(i, dimensions))
    await ctx.db.pool.query(
      `INSERT INTO embedding_cache (model, text_hash, vector)
       SELECT $1, 'h' || i, ($2::real[])[(i - 1) * $3 + 1 : i * $3] FROM generate_series(1, 60) AS i`,
      [model, float4Array(vectors, dimensions), dimensions],
    )
    await ctx.db.pool.query(
      `INSERT INTO vecs SELECT $1 || i, 'e' || (i % 20), 'w' || (i % 2), $1, 'h' || i,
         (SELECT vector FROM embedding_cache WHERE model = $1 AND text_hash = 'h' || i)::${vectorColumn(true)}
       FROM generate_series(1, 60) AS i`,
      [model],
    )
  }
  await ctx.db.pool.query(
    'INSERT INTO vecs_history SELECT id, entry_id, workspace_id, model, text_hash, 1, NULL FROM vecs',
  )
})
test.after(async ({ db }) => db.close())

/** Nearest rows of workspace w1 now, or (at) in the history as of a position; `exact`: compared without an index. */
const search = (
  db: Database,
  q: { model: string; dimensions: number },
  vector: number[],
  at?: number,
  { limit = 10, exact = false } = {},
) =>
  inTransaction(db.pool, (tx) =>
    nearestRows(tx, true, {
      table: at === undefined ? 'vecs' : 'vecs_history',
      key: 'entry_id',
      vector,
      ...q,
      at,
      scope: [['workspace_id = ?', 'w1']],
      limit,
      exact,
    }),
  )

/** The true nearest rows of a model in workspace w1, by cosine over the vectors as stored. */
const exact = (q: { dimensions: number }, model: string, vector: number[]) =>
  Array.from({ length: 60 }, (_, k) => k + 1)
    .filter((i) => i % 2 === 1)
    .map((i) => ({ id: `${model}${i}`, score: cosine(vectorOf(i - 1, q.dimensions), vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 10)

test('a model of 12 dimensions and one of 40 in one column: each searched through its own index', async ({ db }) => {
  await ensureVectorIndex(db.pool, 'vecs', SMALL.model, SMALL.dimensions)
  const query = vectorOf(7, SMALL.dimensions)
  const hits = await search(db, SMALL, query)
  assert.ok(
    hits.every((h) => h.id.startsWith('small')),
    'only the model asked',
  )
  const truth = exact(SMALL, 'small', query)
  const found = new Set(hits.map((h) => h.id))
  assert.ok(truth.filter((t) => found.has(t.id)).length >= 9, 'the true nearest rows')
  assert.is(hits[0].id, truth[0].id)
  // The plan reads the small model's index.
  const plan = await inTransaction(db.pool, async (tx) => {
    await tx.query('SET LOCAL enable_seqscan = off')
    const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM vecs WHERE model = 'small'
       ORDER BY embedding::${STORED_VECTOR}(12) <=> '[${query.join(',')}]'::${STORED_VECTOR}(12) LIMIT 5`,
    )
    return rows.map((r) => r['QUERY PLAN']).join('\n')
  })
  assert.match(plan, /Index Scan using vecs_hnsw_/)
})

test('the configured model keeps the only index: a change of model drops the former one', async ({ db }) => {
  const names = async () =>
    (
      await db.pool.query<{ name: string }>(
        "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'vecs' AND indexname LIKE 'vecs\\_hnsw\\_%'",
      )
    ).rows.map((r) => r.name)
  await ensureVectorIndex(db.pool, 'vecs', SMALL.model, SMALL.dimensions)
  const [small] = await names()
  await ensureVectorIndex(db.pool, 'vecs', LARGE.model, LARGE.dimensions)
  const after = await names()
  assert.is(after.length, 1)
  assert.is.not(after[0], small)
  const query = vectorOf(3, LARGE.dimensions)
  const hits = await search(db, LARGE, query)
  assert.is(hits[0].id, exact(LARGE, 'large', query)[0].id)
  assert.ok(hits.every((h) => h.id.startsWith('large')))
})

test('the past: rows still current and rows changed since, each through an index', async ({ db }) => {
  await ensureVectorIndex(db.pool, 'vecs', SMALL.model, SMALL.dimensions)
  await ensureVectorIndex(db.pool, 'vecs_history', SMALL.model, SMALL.dimensions, 'closed_embedding')
  const query = vectorOf(11, SMALL.dimensions)
  // Nothing changed yet: as of position 3, the same nearest rows as now, with the same scores.
  const now = await search(db, SMALL, query)
  const then = await search(db, SMALL, query, 3)
  assert.equal(
    then.map((h) => h.id),
    now.map((h) => h.id),
  )
  then.forEach((h, i) => assert.ok(Math.abs(h.score - now[i].score) < 1e-3, `${h.id}: ${h.score}`))
  // At position 5, row small7 (workspace w1) got another text, far from its old one; its row of
  // history closed, its text replaced, keeping its vector.
  const moved = vectorOf(500, SMALL.dimensions)
  await db.pool.query(
    `INSERT INTO embedding_cache (model, text_hash, vector) VALUES ('small', 'h-new', $1);
     UPDATE vecs SET text_hash = 'h-new', embedding = $1::real[]::vector WHERE id = 'small7';
     UPDATE vecs_history SET valid_to = 5, replaced = true, closed_embedding = (SELECT vector FROM embedding_cache
       WHERE model = 'small' AND text_hash = 'h7')::vector WHERE id = 'small7';
     INSERT INTO vecs_history VALUES ('small7', 'e7', 'w1', 'small', 'h-new', 5, NULL)`.replace(
      /\$1/g,
      `'{${moved.join(',')}}'`,
    ),
  )
  const old = vectorOf(6, SMALL.dimensions)
  const asOf3 = await search(db, SMALL, old, 3)
  assert.is(asOf3[0].id, 'small7', 'as of 3, its old text is nearest its old vector')
  assert.ok(asOf3[0].score > 0.999)
  const asOf6 = await search(db, SMALL, old, 6)
  assert.ok(
    asOf6.every((h) => h.id !== 'small7' || h.score < 0.99),
    'as of 6, it has moved away',
  )
  assert.equal((await search(db, SMALL, moved, 6))[0].id, 'small7')
  // The closed rows are read through their own index.
  const plan = await inTransaction(db.pool, async (tx) => {
    await tx.query('SET LOCAL enable_seqscan = off')
    const { rows } = await tx.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN SELECT id FROM vecs_history WHERE model = 'small' AND replaced
       ORDER BY closed_embedding::${STORED_VECTOR}(12) <=> '[${old.join(',')}]'::${STORED_VECTOR}(12) LIMIT 5`,
    )
    return rows.map((r) => r['QUERY PLAN']).join('\n')
  })
  assert.match(plan, /Index Scan using vecs_history_hnsw_/)
  // A closed row that kept no vector (the cache lacked it as it closed) is compared from the cache.
  await db.pool.query("UPDATE vecs_history SET closed_embedding = NULL WHERE id = 'small7' AND replaced")
  const unkept = await search(db, SMALL, old, 3)
  assert.is(unkept[0].id, 'small7')
  assert.ok(unkept[0].score > 0.999)
  // Another model's rows are never compared.
  assert.ok((await search(db, LARGE, vectorOf(1, LARGE.dimensions), 3)).every((h) => h.id.startsWith('large')))
})

test('the past: a row moved out of scope since is found as of then, and many replaced rows all count', async ({
  db,
}) => {
  await ensureVectorIndex(db.pool, 'vecs', LARGE.model, LARGE.dimensions)
  await ensureVectorIndex(db.pool, 'vecs_history', LARGE.model, LARGE.dimensions, 'closed_embedding')
  const ids = (hits: { id: string }[]) => hits.map((h) => h.id).sort()
  const query = vectorOf(20, LARGE.dimensions)
  const before = await search(db, LARGE, query, 7, { limit: 30 })
  assert.equal(ids(before), ids(await search(db, LARGE, query, 7, { limit: 30, exact: true })))
  // At position 8, row large21 (the nearest) moves to workspace w2 with the same text: its row of then is read.
  await db.pool.query(
    `UPDATE vecs SET workspace_id = 'w2' WHERE id = 'large21';
     UPDATE vecs_history SET valid_to = 8 WHERE id = 'large21' AND valid_to IS NULL;
     INSERT INTO vecs_history SELECT id, entry_id, workspace_id, model, text_hash, 8, NULL FROM vecs
       WHERE id = 'large21'`,
  )
  assert.ok(!(await search(db, LARGE, query)).some((h) => h.id === 'large21'), 'now it is out of scope')
  assert.equal(ids(await search(db, LARGE, query, 7, { limit: 30 })), ids(before))
  // At position 9 every row of w1 gets a text far from its old one, keeping its vector then: as of 7, the 30 nearest
  // rows are all rows replaced since, more than a search of the past asks for first.
  await db.pool.query(
    `UPDATE vecs_history h SET valid_to = 9, replaced = true, closed_embedding = v.embedding
       FROM vecs v WHERE h.id = v.id AND h.valid_to IS NULL AND v.model = 'large' AND v.workspace_id = 'w1';
     UPDATE vecs SET text_hash = text_hash || '-new',
       embedding = (SELECT array_agg(-x) FROM unnest(embedding::real[]) x)
       WHERE model = 'large' AND workspace_id = 'w1';
     INSERT INTO vecs_history SELECT id, entry_id, workspace_id, model, text_hash, 9, NULL FROM vecs
       WHERE model = 'large' AND workspace_id = 'w1'`,
  )
  const after = await search(db, LARGE, query, 7, { limit: 30 })
  assert.is(after.length, 30)
  assert.equal(ids(after), ids(before))
  after.forEach((h) => assert.ok(Math.abs(h.score - (before.find((b) => b.id === h.id)?.score ?? -1)) < 1e-3, h.id))
  // A text of now is not found as of then.
  const moved = vectorOf(0, LARGE.dimensions).map((x) => -x)
  assert.is((await search(db, LARGE, moved, 9))[0].id, 'large1')
  assert.ok((await search(db, LARGE, moved, 7)).every((h) => h.id !== 'large1' || h.score < 0.5))
})

test.run()
