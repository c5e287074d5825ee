import { type Client, type Database, inTransaction } from '../../adapters/db'

// Where a search reads: one snapshot of the tables in service (or of a rebuild's, for its replay).

/**
 * Runs a search's reads in one read-only transaction on one connection: both legs and the rows
 * served come from one snapshot, and on PGlite's single connection a search waits for other
 * work once rather than once per query.
 */
export const inSnapshot = <T>(deps: { db: Database; readFrom?: string[] }, fn: (tx: Client) => Promise<T>) =>
  inTransaction(deps.db.pool, async (tx) => {
    await tx.query('SET TRANSACTION READ ONLY')
    if (deps.readFrom?.length)
      await tx.query(`SET LOCAL search_path TO ${deps.readFrom.map(schemaName).join(', ')}, public`)
    return fn(tx)
  })

/** A schema's name as SQL: a rebuild's (kb_rebuild_…), never anything a client sent. */
const schemaName = (name: string) => {
  if (!/^kb_rebuild_[a-z0-9_]+$/.test(name)) throw new Error(`not a rebuild's schema: ${name}`)
  return name
}

/** The log position a projection's tables have reached (what an answer read from them reflects at least). */
export const projectedPosition = async (tx: Client, projector: string): Promise<number> => {
  const { rows } = await tx.query<{ position: number }>('SELECT position FROM projection_checkpoints WHERE name = $1', [
    projector,
  ])
  return Number(rows[0]?.position ?? 0)
}
