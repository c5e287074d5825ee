import { createHash } from 'node:crypto'
import pgvector from 'pgvector'
import type { Queryable } from './db'
import { scopeAt, unchangedSince } from './history'
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
  /** A table with `id`, `model`, `text_hash` and an `embedding` column (./vectorIndex.ts's `vectorColumn`). */
  table: string
  key: string
  /** The column naming the chunk a row stands for, if the table has one. */
  chunk?: string
  vector: number[]
  model: string
  /** The model's vector length. */
  dimensions: number
  /** Conditions on the columns the table shares with its history. */
  scope: Scope
  limit: number
  /**
   * A past log position: `table` is a history (projections/history.ts), read as it stood then. It keeps no vectors of
   * its own but those of rows whose text was replaced (`pastSearch`); others are read from the current table or the
   * embedding cache.
   */
  at?: number
  /** Compare every row in scope, without the index (a scope known to hold few rows). */
  exact?: boolean
}

/**
 * How the read models keep a vector where pgvector is installed: `vector`, at the model's own length
 * (the column has no fixed length, so two models' vectors can sit side by side during a
 * re-embedding). `halfvec` would halve the bytes with the same recall, but in PGlite's WebAssembly
 * (no hardware half-float conversion) its index took 3 to 5 times as long to build and its searches
 * twice as long (docs/benchmarks.md, ingest-text).
 */
export const STORED_VECTOR = 'vector'

/** The `embedding` column's type: pgvector's, or `real[]` on a server without it. */
export const vectorColumn = (pgvector: boolean) => (pgvector ? STORED_VECTOR : 'real[]')

/** A SQL string literal. */
const literal = (s: string) => `'${s.replace(/'/g, "''")}'`

/** The cast that makes a row's vector (and the query's) comparable by the model's index. */
const typed = (dimensions: number) => `${STORED_VECTOR}(${Math.floor(dimensions)})`

/** A model's index on a table is named by a digest of the model and its length. */
const indexName = (table: string, model: string, dimensions: number) =>
  `${table}_hnsw_${createHash('sha256').update(`${model}:${dimensions}`).digest('hex').slice(0, 10)}`

/**
 * The HNSW index of one model's vectors in a table: an index of the rows of that model, over their
 * vectors cast to its length. m = 8 (pgvector's default is 16) makes an insertion about 2.7 times
 * cheaper, which every write pays on the service's thread in PGlite; the searches make up the
 * recall with a wider candidate list (EF_SEARCH). Measured (docs/benchmarks.md, the search
 * benchmark and the evaluation): at ef_search 300, m = 8 finds about as many of the true nearest
 * rows as m = 16 at 100, and gives the evaluation's exact-search vector results.
 */
export const vectorIndexDdl = (table: string, model: string, dimensions: number, column = 'embedding') =>
  `CREATE INDEX IF NOT EXISTS ${indexName(table, model, dimensions)} ON ${table} USING hnsw
     ((${column}::${typed(dimensions)}) ${STORED_VECTOR}_cosine_ops) WITH (m = 8, ef_construction = 64)
     WHERE model = ${literal(model)};`

/**
 * The index of the configured model on a table (over its vectors' column), and no other: after a
 * change of model (and its re-embedding) the former model's index would only hold space.
 */
export const ensureVectorIndex = async (
  q: Queryable,
  table: string,
  model: string,
  dimensions: number,
  column = 'embedding',
) => {
  await q.query(vectorIndexDdl(table, model, dimensions, column))
  const { rows } = await q.query<{ name: string }>(
    `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1
       AND indexname LIKE $2 AND indexname <> $3`,
    [table, `${table}\\_hnsw\\_%`, indexName(table, model, dimensions)],
  )
  for (const { name } of rows) await q.query(`DROP INDEX IF EXISTS ${name}`)
}

/** Candidates the HNSW scan keeps (pgvector's hnsw.ef_search; its default is 40, too few for m = 8). */
const EF_SEARCH = 300

/**
 * Nearest rows: over the model's HNSW index where pgvector is installed and the table keeps its
 * vectors; otherwise by comparing every row in scope (`exactVectorSearch`).
 */
export const nearestRows = (tx: Queryable, pgvector: boolean, q: VectorQuery) =>
  !pgvector ? exactVectorSearch(tx, q) : q.at !== undefined ? pastSearch(tx, q, q.at) : vectorSearch(tx, q)

/** How many distinct keys a search of nearest rows gathers, and how many rows of each it keeps. */
export interface Spread {
  keys: number
  perKey: number
}

/** Times `nearestKeys` asks again, at most, before it answers with the keys it holds. */
const SPREAD_ROUNDS = 5

/**
 * The share of its rows a search of the past asks first of those whose text was replaced since (`pastSearch`).
 * Measured on a history of five rewrites at 10,000 passages (docs/benchmarks.md, as-of): asking 50 rather than 200
 * took that scan from 10-15 ms to 5-6.
 */
const CLOSED_FIRST = 0.25

/**
 * Nearest rows of at least `spread.keys` distinct keys (fewer where the scope holds fewer), at most
 * `spread.perKey` of each, nearest first. A long document has many rows near any question on its
 * topic: the `limit` nearest rows alone can all be its own and leave every other key without
 * evidence. So the search asks again, each time leaving out the keys that already have their rows,
 * until it holds enough keys or the rows run out.
 *
 * Asking the HNSW index again is not enough: hundreds of near-identical rows (a list repeated page
 * after page) crowd the graph's links, and rows far from them can become unreachable from its
 * entry point (seen: 8 short notes beside 300 passages of one list, none found at any ef_search).
 * Where the index gives fewer rows than asked, the rest of the scope is compared exactly: either the
 * scope holds fewer rows than asked (a small workspace, a narrow filter: the exact scan reads just
 * those), or some are out of the index's reach.
 */
export const nearestKeys = async (
  tx: Queryable,
  pgvector: boolean,
  q: VectorQuery,
  spread: Spread,
): Promise<VectorHit[]> => {
  const kept = new Map<string, VectorHit>()
  const perKey = new Map<string, number>()
  for (let round = 0; round < SPREAD_ROUNDS; round++) {
    const full = [...perKey].filter(([, n]) => n >= spread.perKey).map(([key]) => key)
    const left: Scope = full.length > 0 ? [[`${q.key} <> ALL(?::text[])`, full]] : []
    const rest = { ...q, scope: [...q.scope, ...left] }
    let hits =
      pgvector && q.exact && q.at === undefined ? await exactNearest(tx, rest) : await nearestRows(tx, pgvector, rest)
    if (pgvector && !q.exact && hits.length < q.limit) hits = await exactNearest(tx, rest)
    for (const h of hits) {
      const n = perKey.get(h.key) ?? 0
      if (kept.has(h.id) || n >= spread.perKey) continue
      kept.set(h.id, h)
      perKey.set(h.key, n + 1)
    }
    if (perKey.size >= spread.keys || hits.length < q.limit) break
  }
  return [...kept.values()].sort((a, b) => b.score - a.score)
}

/**
 * Nearest rows by pgvector's distance without its HNSW index: every row in scope compared (the rows
 * of a history read their vectors from the cache). The order is by the distance plus 0, an
 * expression the HNSW index does not hold, so the planner cannot walk it; the scope's own indexes
 * still find the rows to compare.
 */
export const exactNearest = async (tx: Queryable, q: VectorQuery): Promise<VectorHit[]> => {
  const s = scopeSql(scopeAt(q.scope, q.at), 4)
  const distance = `(embedding::${typed(q.dimensions)} <=> $1::${typed(q.dimensions)}) + 0`
  const { rows } = await tx.query<{ id: string; key: string; chunk: number | null; distance: number }>(
    `SELECT id, ${q.key} AS key, ${q.chunk ?? 'NULL::int'} AS chunk, ${distance} AS distance
     FROM ${rowsOf(q.table, q.at)} WHERE model = $3${s.sql} ORDER BY ${distance} LIMIT $2`,
    [pgvector.toSql(q.vector), q.limit, q.model, ...s.args],
  )
  return rows.map((r) => ({ id: r.id, key: r.key, chunk: r.chunk, score: similarity(r.distance) }))
}

/** Sets the planner to walk the HNSW index in distance order (see vectorSearch); `reset` undoes it. */
const indexOrder = (limit: number) =>
  `SET LOCAL hnsw.ef_search = ${Math.min(1000, Math.max(EF_SEARCH, Math.ceil(limit)))};
   SET LOCAL hnsw.iterative_scan = 'relaxed_order'; SET LOCAL enable_seqscan = off;
   SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off; SET LOCAL enable_hashjoin = off;
   SET LOCAL enable_mergejoin = off`
const reset =
  'SET LOCAL hnsw.ef_search TO DEFAULT; SET LOCAL enable_seqscan TO DEFAULT; SET LOCAL enable_bitmapscan TO DEFAULT; ' +
  'SET LOCAL enable_sort TO DEFAULT; SET LOCAL enable_hashjoin TO DEFAULT; SET LOCAL enable_mergejoin TO DEFAULT'

/**
 * Nearest rows of a history as of `at`, in three parts.
 * - The rows of then whose text is their passage's text now: the current table's rows, found through today's HNSW
 *   index. A row no version of which opened since `at` is the row of then, checked against the scope as it stands;
 *   any other is checked against its row of history then (same text, and the scope then).
 * - The rows of then whose text was replaced since kept their vector then (`replaced`, `closed_embedding`), in an HNSW
 *   index of their own, the moment a condition of the scan. They are usually a small part of the rows of then: the
 *   scan first asks for a share of `limit` (CLOSED_FIRST), and for all of it only where all of those are nearer than
 *   the farthest row of the first part (so that more of them could be among the nearest).
 * - A replaced row whose vector the cache did not hold as it closed is compared exactly, read from the cache by hash.
 * A scope known to hold few rows (`exact`) is compared exactly in every part, read from the rows of history in scope:
 * an index scan filtered down to it could miss some.
 */
const pastSearch = async (tx: Queryable, q: VectorQuery, at: number): Promise<VectorHit[]> => {
  const current = q.table.replace(/_history$/, '')
  const then = scopeSql(scopeAt(q.scope, at), 4)
  const chunk = (alias: string) => (q.chunk ? `${alias}.${q.chunk}` : 'NULL::int')
  const to = (column: string) => `${column}::${typed(q.dimensions)} <=> $1::${typed(q.dimensions)}`
  // Ordered by an expression no index holds, the rows in scope are compared exactly.
  const order = (column: string) => (q.exact ? `(${to(column)}) + 0` : to(column))
  type Row = { id: string; key: string; chunk: number | null; distance: number }
  const args = [pgvector.toSql(q.vector), q.limit, q.model, ...then.args]
  if (!q.exact) await tx.query(indexOrder(q.limit))
  // The scope as it stands, on the current row, after the scope then (its parameters numbered on).
  const now = scopeSql(q.scope, 4 + then.args.length)
  const still = await tx.query<Row>(
    q.exact
      ? `SELECT h.id, h.${q.key} AS key, ${chunk('h')} AS chunk, ${to('p.embedding')} AS distance
         FROM (SELECT * FROM ${q.table} WHERE model = $3${then.sql}) h
         JOIN ${current} p ON p.id = h.id AND p.model = h.model AND p.text_hash = h.text_hash
         ORDER BY ${order('p.embedding')} LIMIT $2`
      : `SELECT p.id, h.key, h.chunk, ${to('p.embedding')} AS distance FROM ${current} p
         CROSS JOIN LATERAL (
           SELECT p.${q.key} AS key, ${chunk('p')} AS chunk WHERE ${unchangedSince(q.table, at, 'p')}${now.sql}
           UNION ALL
           (SELECT ${q.key}, ${chunk(q.table)} FROM ${q.table} WHERE id = p.id AND model = p.model
              AND text_hash = p.text_hash${then.sql} LIMIT 1)
           LIMIT 1) h
         WHERE p.model = $3 ORDER BY ${to('p.embedding')} LIMIT $2`,
    q.exact ? args : [...args, ...now.args],
  )
  const closedRows = (limit: number) =>
    tx.query<Row>(
      `SELECT id, ${q.key} AS key, ${chunk(q.table)} AS chunk, ${to('closed_embedding')} AS distance FROM ${q.table}
       WHERE model = $3 AND replaced AND closed_embedding IS NOT NULL${then.sql}
       ORDER BY ${order('closed_embedding')} LIMIT $2`,
      [args[0], limit, ...args.slice(2)],
    )
  const first = q.exact ? q.limit : Math.ceil(q.limit * CLOSED_FIRST)
  let closed = await closedRows(first)
  const farthest = (rows: Row[]) => Math.max(...rows.map((r) => r.distance))
  const bound = still.rows.length < q.limit ? Number.POSITIVE_INFINITY : farthest(still.rows)
  if (closed.rows.length === first && first < q.limit && farthest(closed.rows) < bound)
    closed = await closedRows(q.limit)
  if (!q.exact) await tx.query(reset)
  const unkept = await tx.query<Row>(
    `SELECT h.id, h.${q.key} AS key, ${chunk('h')} AS chunk, ec.vector::vector <=> $1::vector AS distance
     FROM (SELECT * FROM ${q.table} WHERE replaced AND closed_embedding IS NULL AND model = $3${then.sql}) h
     JOIN embedding_cache ec ON ec.model = h.model AND ec.text_hash = h.text_hash ORDER BY distance LIMIT $2`,
    args,
  )
  return [...still.rows, ...closed.rows, ...unkept.rows]
    .map((r) => ({ id: r.id, key: r.key, chunk: r.chunk, score: similarity(r.distance) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, q.limit)
}

/** The rows a query reads: the table, or (a history as of `at`) its rows each with its text's vector from the cache. */
const rowsOf = (table: string, at?: number) =>
  at !== undefined
    ? `(SELECT r.*, ec.vector AS embedding FROM ${table} r
        JOIN embedding_cache ec ON ec.model = r.model AND ec.text_hash = r.text_hash) AS ${table}`
    : table

/**
 * Nearest rows by cosine distance over the HNSW index. The scope's conditions sit in the same
 * scan, and pgvector's iterative scan (relaxed order, re-sorted here) keeps reading the index
 * until `limit` rows pass them. Only vectors of `model` are compared. `tx` is a connection inside
 * a transaction: the planner settings below end with it.
 */
export const vectorSearch = async (
  tx: Queryable,
  { table, key, chunk, vector, model, dimensions, scope, limit }: VectorQuery,
): Promise<VectorHit[]> => {
  const s = scopeSql(scope, 4)
  // The planner underrates the cost of computing distances and may prefer sorting every row
  // of the workspace (tens of ms at 10,000 chunks) to the HNSW scan: take that choice away.
  await tx.query(indexOrder(limit))
  const distance = `embedding::${typed(dimensions)} <=> $1::${typed(dimensions)}`
  const { rows } = await tx.query<{ id: string; key: string; chunk: number | null; distance: number }>(
    `SELECT id, ${key} AS key, ${chunk ?? 'NULL::int'} AS chunk, ${distance} AS distance FROM ${table}
     WHERE model = $3${s.sql} ORDER BY ${distance} LIMIT $2`,
    [pgvector.toSql(vector), limit, model, ...s.args],
  )
  // Back to the planner's own choices for whatever else the transaction reads.
  await tx.query(reset)
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
export const exactVectorSearch = async (tx: Queryable, q: VectorQuery): Promise<VectorHit[]> => {
  const { key, chunk, vector, model, scope, limit } = q
  const length = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))
  if (length === 0) return []
  const s = scopeSql(scopeAt(scope, q.at), 4)
  const { rows } = await tx.query<{ id: string; key: string; chunk: number | null; cosine: number | null }>(
    `SELECT id, key, chunk, cosine FROM (
       SELECT id, ${key} AS key, ${chunk ?? 'NULL::int'} AS chunk,
         (SELECT sum(a::float8 * b) / nullif(sqrt(sum(a::float8 * a)), 0)
            FROM unnest(embedding, $1::real[]) AS u(a, b)) AS cosine
       FROM ${rowsOf(q.table, q.at)} WHERE model = $3 AND embedding IS NOT NULL${s.sql}) scored
     WHERE cosine IS NOT NULL AND cosine <> 'NaN' ORDER BY cosine DESC LIMIT $2`,
    [vector.map((x) => x / length), limit, model, ...s.args],
  )
  return rows.map((r) => ({ id: r.id, key: r.key, chunk: r.chunk, score: similarity(1 - Number(r.cosine)) }))
}

/** Whether any row in scope has a vector of this model (in the table, or for a history as of `at`, in the cache). */
export const hasVectors = async (q: Queryable, table: string, model: string, scope: Scope, at?: number) => {
  const s = scopeSql(scopeAt(scope, at), 2)
  const { rows: found } = await q.query(
    `SELECT 1 FROM ${rowsOf(table, at)} WHERE model = $1 AND embedding IS NOT NULL${s.sql} LIMIT 1`,
    [model, ...s.args],
  )
  return found.length > 0
}

/** The engine comparing vectors: pgvector's HNSW index, or the exact scan of real[]. */
export const vectorEngine = (pgvector: boolean) => (pgvector ? 'pgvector' : 'exact scan')
