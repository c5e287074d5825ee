import pgvector from 'pgvector'
import type { Queryable } from './db'
import { type Scope, scopeSql } from './textIndex/port'

export interface VectorHit {
  id: string
  key: string
  /** The chunk a passage stands for (null for a table of whole rows). */
  chunk: number | null
  /** Cosine similarity clamped to [0, 1]. */
  score: number
}

export interface VectorQuery {
  /** A table with `id`, `model` and an HNSW-indexed `embedding` column. */
  table: string
  key: string
  /** The column naming the chunk a row stands for, if the table has one. */
  chunk?: string
  vector: number[]
  model: string
  scope: Scope
  limit: number
  /** The model's own dimensions (the rest are zeros): an exact scan reads only those. */
  dimensions?: number
}

/**
 * The HNSW index of a table's `embedding` column. m = 8 (pgvector's default is 16) makes an
 * insertion about 2.7 times cheaper, which every write pays on the service's thread in PGlite; the
 * searches make up the recall with a wider candidate list (EF_SEARCH). Measured (docs/benchmarks.md, the
 * search benchmark and the evaluation): at ef_search 300, m = 8 finds about as many of the true
 * nearest rows as m = 16 at 100, and gives the evaluation's exact-search vector results.
 */
export const hnswIndexDdl = (table: string) =>
  `CREATE INDEX ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops) WITH (m = 8, ef_construction = 64);`

/** Candidates the HNSW scan keeps (pgvector's hnsw.ef_search; its default is 40, too few for m = 8). */
const EF_SEARCH = 300

/**
 * Nearest rows by cosine distance over the HNSW index. The scope's conditions sit in the same
 * scan, and pgvector's iterative scan (relaxed order, re-sorted here) keeps reading the index
 * until `limit` rows pass them. Only vectors of `model` are compared. `tx` is a connection inside
 * a transaction: the planner settings below end with it.
 */
export const vectorSearch = async (
  tx: Queryable,
  { table, key, chunk, vector, model, scope, limit }: VectorQuery,
): Promise<VectorHit[]> => {
  const s = scopeSql(scope, 4)
  // The planner underrates the cost of computing distances and may prefer sorting every row
  // of the workspace (tens of ms at 10,000 chunks) to the HNSW scan: take that choice away.
  await tx.query(
    `SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(EF_SEARCH, Math.ceil(limit)))};
      SET LOCAL hnsw.iterative_scan = 'relaxed_order'; SET LOCAL enable_seqscan = off;
    SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off`,
  )
  const { rows } = await tx.query<{ id: string; key: string; chunk: number | null; distance: number }>(
    `SELECT id, ${key} AS key, ${chunk ?? 'NULL::int'} AS chunk, embedding <=> $1::vector AS distance FROM ${table}
     WHERE model = $3${s.sql} ORDER BY embedding <=> $1::vector LIMIT $2`,
    [pgvector.toSql(vector), limit, model, ...s.args],
  )
  // Back to the planner's own choices for whatever else the transaction reads.
  await tx.query(
    'SET LOCAL hnsw.ef_search TO DEFAULT; SET LOCAL enable_seqscan TO DEFAULT; SET LOCAL enable_bitmapscan TO ' +
      'DEFAULT; SET LOCAL enable_sort TO DEFAULT',
  )
  return rows
    .map((r) => ({ id: r.id, key: r.key, chunk: r.chunk, score: similarity(r.distance) }))
    .sort((a, b) => b.score - a.score)
}

const similarity = (distance: number) => Math.min(1, Math.max(0, 1 - distance))

/**
 * Nearest rows by cosine similarity where vectors are kept as `real[]` (a server without pgvector):
 * every row in scope is compared, in SQL, so it is slower than the HNSW scan, and exact. The query is
 * made unit length here, so each row's similarity is its dot product over its own length.
 */
export const exactVectorSearch = async (
  tx: Queryable,
  { table, key, chunk, vector, model, scope, limit, dimensions = vector.length }: VectorQuery,
): Promise<VectorHit[]> => {
  const length = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))
  // Vectors of a smaller model are zero-padded: their first `dimensions` decide (a third of the work for 512).
  if (length === 0) return []
  const s = scopeSql(scope, 4)
  const { rows } = await tx.query<{ id: string; key: string; chunk: number | null; cosine: number | null }>(
    `SELECT id, key, chunk, cosine FROM (
       SELECT id, ${key} AS key, ${chunk ?? 'NULL::int'} AS chunk,
         (SELECT sum(a::float8 * b) / nullif(sqrt(sum(a::float8 * a)), 0)
            FROM unnest(embedding[1:${Math.floor(dimensions)}], $1::real[]) AS u(a, b)) AS cosine
       FROM ${table} WHERE model = $3 AND embedding IS NOT NULL${s.sql}) scored
     WHERE cosine IS NOT NULL AND cosine <> 'NaN' ORDER BY cosine DESC LIMIT $2`,
    [vector.slice(0, dimensions).map((x) => x / length), limit, model, ...s.args],
  )
  return rows.map((r) => ({ id: r.id, key: r.key, chunk: r.chunk, score: similarity(1 - Number(r.cosine)) }))
}

/** Whether any row in scope has a vector of this model. */
export const hasVectors = async (q: Queryable, table: string, model: string, scope: Scope) => {
  const s = scopeSql(scope, 2)
  const { rows } = await q.query(`SELECT 1 FROM ${table} WHERE model = $1 AND embedding IS NOT NULL${s.sql} LIMIT 1`, [
    model,
    ...s.args,
  ])
  return rows.length > 0
}

/** The engine comparing vectors: pgvector's HNSW index, or the exact scan of real[]. */
export const vectorEngine = (pgvector: boolean) => (pgvector ? 'pgvector' : 'exact scan')
