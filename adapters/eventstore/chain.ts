import { createHash } from 'node:crypto'
import type { Queryable } from '../db'

/**
 * The hash chain of the events: each workspace's events (and, as chain '', the events of no
 * workspace) are chained in log order. An event's content hash is the SHA-256 of its canonical
 * form; its link is SHA-256(previous link ‖ content hash). Each chain's head is kept apart from the
 * links, so that the last events cannot be removed unseen. The Postgres event store keeps each link
 * in its event's row (./postgresChain.ts); the EventStoreDB adapter keeps them in a ledger table
 * beside the read models (./kurrentLedger.ts).
 */
export const headsSchema = `
CREATE TABLE IF NOT EXISTS es_chain_heads (chain text PRIMARY KEY, position bigint NOT NULL, hash bytea NOT NULL);
`

/** The canonical form 2 of an event, whose SHA-256 is its content hash. */
export const canonicalEvent = (e: { id: string; streamId: string; type: string; data: unknown; metadata: unknown }) =>
  JSON.stringify([e.id, e.streamId, e.type, e.data, e.metadata], (_key, value) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(
          Object.keys(value)
            .sort()
            .map((k) => [k, value[k]]),
        )
      : value,
  )

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest()

/** The link after `previous` (none: the chain's first event) for an event of this content hash. */
export const linkAfter = (previous: Buffer | null | undefined, content: Buffer) =>
  sha256(Buffer.concat([previous ?? Buffer.alloc(0), content]))

/** Every chain's head, for an appender to link its batches from. */
export const chainHeads = async (q: Queryable) => {
  const { rows } = await q.query<{ chain: string; hash: Buffer; position: number }>(
    'SELECT chain, hash, position FROM es_chain_heads',
  )
  return new Map(rows.map((r) => [r.chain, { hash: r.hash, position: r.position }]))
}

export interface ChainHead {
  chain: string
  position: number
  hash: string
}

export const chainHead = async (q: Queryable, chain: string): Promise<ChainHead | undefined> => {
  const { rows } = await q.query<{ position: number; hash: Buffer }>(
    'SELECT position, hash FROM es_chain_heads WHERE chain = $1',
    [chain],
  )
  return rows[0] && { chain, position: rows[0].position, hash: rows[0].hash.toString('hex') }
}

/** Where a chain's links are kept: the table, and the column of each event's time. */
export interface ChainTable {
  table: string
  time: string
}

/**
 * The last event of a chain at or before a moment (a time, or a log position), counting events
 * whose content a deletion cut: their links keep the position and the time.
 */
export const lastChainedAt = async (
  q: Queryable,
  { table, time }: ChainTable,
  chain: string,
  at: { time: Date } | { position: number },
) => {
  const { rows } = await q.query<{ position: number; time: Date | null }>(
    'time' in at
      ? `SELECT position, ${time} AS time FROM ${table} WHERE chain = $1 AND ${time} <= $2
         ORDER BY ${time} DESC, position DESC LIMIT 1`
      : `SELECT position, ${time} AS time FROM ${table} WHERE chain = $1 AND position <= $2
         ORDER BY position DESC LIMIT 1`,
    [chain, 'time' in at ? at.time : at.position],
  )
  return rows[0] && { position: rows[0].position, time: rows[0].time?.toISOString() ?? null }
}

export interface ChainBreak {
  chain: string
  position: number
  streamId: string
  revision: number
  reason: string
}

export interface ChainReport {
  chains: ChainHead[]
  /** Events whose content was checked against its hash. */
  verified: number
  /** Events cut by a deletion: their hashes still link the chain. */
  cut: number
  broken?: ChainBreak
}
