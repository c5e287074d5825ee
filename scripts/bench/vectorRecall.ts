// Recall@10 of an HNSW index against the exact nearest passages, for each way a model's vectors can
// be kept, with each way's bytes and query time: measured on the passages a bench has ingested.
import pgvector from 'pgvector'
import { type Database, inTransaction } from '../../adapters/db'

interface Layout {
  name: string
  type: string
  /** The length vectors are kept at (zeros after the model's own). */
  length: number
  efConstruction: number
}

export const layouts = (dimensions: number): Layout[] => [
  { name: `vector(1536), zero-padded from ${dimensions}`, type: 'vector', length: 1536, efConstruction: 64 },
  { name: `vector(${dimensions})`, type: 'vector', length: dimensions, efConstruction: 64 },
  { name: `vector(${dimensions}), ef_construction 32`, type: 'vector', length: dimensions, efConstruction: 32 },
  { name: `halfvec(${dimensions})`, type: 'halfvec', length: dimensions, efConstruction: 64 },
]

export interface RecallRow {
  layout: string
  recall: number
  /** The table and its index, per passage. */
  bytesPerVector: number
  indexSeconds: number
  queryMs: number
}

const padded = (v: number[], length: number) => [...v, ...Array(Math.max(0, length - v.length)).fill(0)]

/** The passages of `model` in a workspace, each layout's copy of their vectors indexed as the service indexes them. */
export const vectorRecall = async (db: Database, model: string, dimensions: number, queries: number[][]) => {
  const exact = await Promise.all(
    queries.map(async (q) => {
      const { rows } = await db.pool.query<{ id: string }>(
        `SELECT p.id FROM kb_passages p JOIN embedding_cache ec ON ec.model = p.model AND ec.text_hash = p.text_hash
         WHERE p.model = $2 ORDER BY ec.vector::vector <=> $1::vector LIMIT 10`,
        [pgvector.toSql(q), model],
      )
      return new Set(rows.map((r) => r.id))
    }),
  )
  const out: RecallRow[] = []
  for (const layout of layouts(dimensions)) {
    const column = `${layout.type}(${layout.length})`
    await db.pool.query('DROP TABLE IF EXISTS bench_vectors')
    await db.pool.query(
      `CREATE TABLE bench_vectors AS SELECT p.id,
         (ec.vector || array_fill(0::real, ARRAY[${layout.length - dimensions}]))::${column} AS embedding
       FROM kb_passages p JOIN embedding_cache ec ON ec.model = p.model AND ec.text_hash = p.text_hash
       WHERE p.model = $1`,
      [model],
    )
    let t = performance.now()
    await db.pool.query(
      `CREATE INDEX bench_vectors_hnsw ON bench_vectors USING hnsw (embedding ${layout.type}_cosine_ops)
       WITH (m = 8, ef_construction = ${layout.efConstruction})`,
    )
    const indexSeconds = (performance.now() - t) / 1000
    const { rows } = await db.pool.query<{ bytes: string; n: string }>(
      "SELECT pg_total_relation_size('bench_vectors') AS bytes, (SELECT count(*) FROM bench_vectors) AS n",
    )
    let found = 0
    t = performance.now()
    for (const [i, q] of queries.entries()) {
      const ids = await inTransaction(db.pool, async (tx) => {
        await tx.query(
          "SET LOCAL hnsw.ef_search = 300; SET LOCAL hnsw.iterative_scan = 'relaxed_order'; " +
            'SET LOCAL enable_seqscan = off',
        )
        const r = await tx.query<{ id: string }>(
          `SELECT id FROM bench_vectors ORDER BY embedding <=> $1::${column} LIMIT 10`,
          [pgvector.toSql(padded(q, layout.length))],
        )
        return r.rows.map((x) => x.id)
      })
      found += ids.filter((id) => exact[i].has(id)).length
    }
    out.push({
      layout: layout.name,
      recall: found / (10 * queries.length),
      bytesPerVector: Number(rows[0].bytes) / Number(rows[0].n),
      indexSeconds,
      queryMs: (performance.now() - t) / queries.length,
    })
  }
  await db.pool.query('DROP TABLE IF EXISTS bench_vectors')
  return out
}
