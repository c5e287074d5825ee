import type { Database } from '../adapters/db'
import type { Projector } from '../projections/projector'

/** Every row of every table a projector owns, in a stable order. */
export const dump = async (db: Database, projector: Projector) => {
  const out: Record<string, Record<string, unknown>[]> = {}
  for (const table of projector.tables)
    out[table] = (await db.pool.query(`SELECT * FROM ${table} t ORDER BY t::text`)).rows
  return out
}
