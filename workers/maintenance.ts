import type { Database } from '../adapters/db'
import { embeddingUnderWay } from '../adapters/embeddingCache'
import type { Embedder } from '../adapters/embedders/port'
import type { Logger } from '../adapters/logger'

// The search tables and their history (searched as of a past moment).
const TABLES = ['kb_chunks', 'kb_entries', 'kb_chunk_entries', 'kb_passages'].flatMap((t) => [t, `${t}_history`])
// Tables kept to the same rules: the pages' index, and operational state written on every request.
const KEPT = [...TABLES, 'kb_page_index', 'embedding_pending', 'rate_limit_hits', 'mcp_sessions']

/**
 * A Postgres server's autovacuum rules: analyze once 50 rows plus 10 % of the table changed since
 * the last analyze, vacuum once 50 rows plus 20 % of it are dead.
 */
const ANALYZE_BASE = 50
const ANALYZE_SHARE = 0.1
const VACUUM_BASE = 50
const VACUUM_SHARE = 0.2
/** How often the counters are read. */
const TICK_MS = 1000
/** A vacuum waits for quiet: in the last two ticks, statements other than these ran under this long. */
const QUIET_BUSY_MS = 50

/**
 * Refreshes the planner's statistics of the search tables. Without them the planner scores every
 * chunk of a workspace instead of walking the BM25 or HNSW index.
 */
export const analyzeSearchTables = async (db: Database) => {
  for (const table of TABLES) await db.pool.query(`ANALYZE ${table}`)
}

interface TableStats {
  relname: string
  n_live_tup: number
  n_dead_tup: number
  n_mod_since_analyze: number
}

export const needsAnalyze = (s: TableStats) => s.n_mod_since_analyze > ANALYZE_BASE + ANALYZE_SHARE * s.n_live_tup
export const needsVacuum = (s: TableStats) => s.n_dead_tup > VACUUM_BASE + VACUUM_SHARE * s.n_live_tup

/**
 * Whether a load is under way: the model embedding a write's texts, or a task waiting or running. A
 * long document's embedding leaves the connection quiet for minutes, and a vacuum then (an HNSW
 * index's is a scan of the whole graph) would take the cores from the model and the connection from reads.
 */
const loadUnderWay = async (db: Database, embedder: Embedder) =>
  embeddingUnderWay(embedder) ||
  (await db.pool.query("SELECT 1 FROM kb_tasks WHERE status IN ('pending', 'processing') LIMIT 1")).rows.length > 0

/**
 * PGlite runs no autovacuum, so the service keeps its search tables itself, by the server's rules.
 * Every second it reads the tables' counters: a table a bulk load or a batch of rewrites changed
 * enough is analyzed at once (a few milliseconds: ANALYZE samples); a table with enough dead rows
 * is vacuumed, and analyzed with it, once the connection has been quiet for two seconds (other
 * statements took under 50 ms of it: background polls, no requests) and no load is under way, one
 * table at a time, so that reads arriving meanwhile wait for one table's vacuum at most. A Postgres
 * server's autovacuum does all of it there.
 */
export const startMaintenance = (db: Database, log: Logger, embedder: Embedder) => {
  const busyMs = db.busyMs
  if (db.kind !== 'pglite' || !busyMs) return () => undefined
  let running = false
  // The connection's time spent on statements other than these, in each of the last two ticks.
  let afterOurs = busyMs()
  let others = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]
  const tick = async () => {
    if (running) return
    running = true
    others = [others[1], busyMs() - afterOurs]
    try {
      // The counters reach the view when a statement ends a second or more after they last did.
      const { rows } = await db.pool.query<TableStats>(
        `SELECT relname, n_live_tup, n_dead_tup, n_mod_since_analyze FROM pg_stat_user_tables
         WHERE relname = ANY($1) AND schemaname = current_schema()`,
        [KEPT],
      )
      for (const table of rows.filter(needsAnalyze)) {
        await db.pool.query(`ANALYZE ${table.relname}`)
        log.debug({ table: table.relname, changed: table.n_mod_since_analyze }, 'analyzed')
      }
      const dead = rows.find(needsVacuum)
      if (dead && others[0] + others[1] < QUIET_BUSY_MS && !(await loadUnderWay(db, embedder))) {
        await db.pool.query(`VACUUM (ANALYZE) ${dead.relname}`)
        log.debug({ table: dead.relname, dead: dead.n_dead_tup }, 'vacuumed')
      }
    } catch (error) {
      log.warn({ err: error }, 'table upkeep failed')
    } finally {
      afterOurs = busyMs()
      running = false
    }
  }
  const timer = setInterval(() => void tick(), TICK_MS)
  timer.unref()
  return () => clearInterval(timer)
}
