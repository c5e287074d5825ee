import { type Database, inTransaction } from './db'
import { type SearchFilters, filterSql } from './textIndex/port'

export interface VectorHit {
  chunkId: string
  entryId: string
  /** Cosine similarity clamped to [0, 1]. */
  score: number
}

/**
 * Nearest chunks by cosine distance over the HNSW index. The workspace, enabled and filter
 * conditions sit in the same scan, and pgvector's iterative scan (relaxed order, re-sorted here)
 * keeps reading the index until `limit` rows pass them. Only vectors of `model` are compared.
 */
export const vectorSearch = async (db: Database, params: { workspaceId: string; vector: number[]; model: string; filters: SearchFilters; limit: number }): Promise<VectorHit[]> => {
  const f = filterSql(params.filters, 5)
  const rows = await inTransaction(db.pool, async (tx) => {
    await tx.query("SET LOCAL hnsw.iterative_scan = 'relaxed_order'")
    // The planner underrates the cost of computing distances and may prefer sorting every chunk
    // of the workspace (tens of ms at 10,000 chunks) to the HNSW scan: take that choice away.
    await tx.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off')
    const { rows } = await tx.query<{ id: string; entry_id: string; distance: number }>(
      `SELECT id, entry_id, embedding <=> $2::vector AS distance FROM kb_chunks
       WHERE workspace_id = $1 AND is_enabled AND model = $3${f.sql}
       ORDER BY embedding <=> $2::vector LIMIT $4`,
      [params.workspaceId, `[${params.vector.join(',')}]`, params.model, params.limit, ...f.args],
    )
    return rows
  })
  return rows
    .map((r) => ({ chunkId: r.id, entryId: r.entry_id, score: Math.min(1, Math.max(0, 1 - r.distance)) }))
    .sort((a, b) => b.score - a.score)
}

/** Whether the workspace has any chunk vectors of this model. */
export const hasVectors = async (db: Database, workspaceId: string, model: string) => {
  const { rows } = await db.pool.query('SELECT 1 FROM kb_chunks WHERE workspace_id = $1 AND model = $2 AND embedding IS NOT NULL LIMIT 1', [workspaceId, model])
  return rows.length > 0
}
