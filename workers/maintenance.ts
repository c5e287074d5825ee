import type { Database } from '../adapters/db'
import type { Logger } from '../adapters/logger'

// The search tables and their history (searched as of a past moment).
const TABLES = ['kb_chunks', 'kb_entries', 'kb_chunk_entries', 'kb_passages'].flatMap((t) => [t, `${t}_history`])

/**
 * Refreshes the planner's statistics of the search tables. PGlite runs no autovacuum, and with
 * stale statistics the planner scores every chunk of a workspace instead of walking the BM25 or
 * HNSW index.
 */
export const analyzeSearchTables = async (db: Database) => {
  for (const table of TABLES) await db.pool.query(`ANALYZE ${table}`)
}

/** On PGlite, analyze periodically; a Postgres server's autovacuum does it there. */
export const startMaintenance = (db: Database, log: Logger, intervalMs = 60_000) => {
  if (db.kind !== 'pglite') return () => undefined
  const timer = setInterval(
    () => analyzeSearchTables(db).catch((error) => log.warn({ err: error }, 'analyze failed')),
    intervalMs,
  )
  timer.unref()
  return () => clearInterval(timer)
}
