import * as E from 'fp-ts/Either'
import type * as t from 'io-ts'
import type { Client } from '../adapters/db'
import type { RecordedEvent } from '../adapters/eventstore/port'

/**
 * A recorded event read by its decider's codec, not cast: an event that does not match the
 * schema stops the projector with a reason that names it, instead of writing what it misread.
 */
export const decodeEvent = <A>(codec: t.Decoder<unknown, A>, recorded: RecordedEvent): A => {
  const decoded = codec.decode({ type: recorded.type, data: recorded.data })
  if (E.isRight(decoded)) return decoded.right
  const where = decoded.left[0]?.context
    .map((c) => c.key)
    .filter(Boolean)
    .join('.')
  throw new Error(`event ${recorded.position} (${recorded.type}) does not match its schema at ${where || 'the top'}`)
}

/**
 * A projector owns some tables and builds them from events. Its SQL uses unqualified table
 * names: the runner sets the search_path, so a rebuild can build the same tables in a fresh
 * schema and swap them in.
 */
export interface Projector {
  name: string
  /** Bump when `schema` or `apply` change meaning: the runner then rebuilds at start-up. */
  version: number
  /** Tables it owns (and only it writes). */
  tables: string[]
  /** DDL creating the tables and their indexes, unqualified names, no IF NOT EXISTS needed. */
  schema: string
  /** Event types it applies ('all' for every event); other events only move its checkpoint. */
  handles: readonly string[] | 'all'
  /** Must be idempotent: applying an event twice changes nothing. */
  apply(tx: Client, event: RecordedEvent): Promise<void>
  /**
   * Optional: applies events it handles, in log order, with the same result as `apply` on each
   * (a projector that writes one row per event does it in one statement).
   */
  applyEvents?(tx: Client, events: RecordedEvent[]): Promise<void>
}

export const checkpointSchema = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name text PRIMARY KEY,
  position bigint NOT NULL,
  version integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`
