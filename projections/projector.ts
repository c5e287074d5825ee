import * as E from 'fp-ts/Either'
import type * as t from 'io-ts'
import { type Client, type Database, type Pause, inTransaction } from '../adapters/db'
import type { RecordedEvent } from '../adapters/eventstore/port'
import type { MirroredTable } from '../adapters/textIndex/port'

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
  /**
   * Must be idempotent: applying an event twice changes nothing. An event with much to write calls
   * `pause()` between its parts, which may commit what is written so far and let readers in (the
   * runner's transaction is cut there): applied again from the start over what a pause left, as after
   * a crash, it must come to the same rows.
   */
  apply(tx: Client, event: RecordedEvent, pause: Pause): Promise<void>
  /**
   * Optional: applies events it handles, in log order, with the same result as `apply` on each
   * (a projector that writes one row per event does it in one statement).
   */
  applyEvents?(tx: Client, events: RecordedEvent[]): Promise<void>
  /**
   * Optional: what follows the configuration rather than the version (the configured model's vector
   * index), brought up to date on the live tables each time the process running the projector starts.
   */
  prepare?(tx: Client): Promise<void>
  /** Tables of its own that an index outside the database mirrors (the text index's `mirror`). */
  mirrored?: MirroredTable[]
  /** Optional: runs once a rebuild's tables are swapped in (an outside index built again from them). */
  afterRebuild?(db: Database): Promise<void>
  /** Optional: runs after a batch's events, before its checkpoint is written (an outside index's refresh). */
  afterBatch?(tx: Client): Promise<void>
}

export const checkpointSchema = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name text PRIMARY KEY,
  position bigint NOT NULL,
  version integer NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`

/** Events a projector reads from the log at a time. */
export const BATCH = 1000

/** Whether the projector reads events of this type. */
export const handles = (projector: Projector, event: RecordedEvent) =>
  projector.handles === 'all' || projector.handles.includes(event.type)

/** A pause that never cuts the transaction. */
export const noPause: Pause = async () => undefined

/** Applies a batch to the projector's tables; returns the checkpoint it recorded. */
export const applyBatch = async (
  tx: Client,
  projector: Projector,
  events: RecordedEvent[],
  after: number,
  pause = noPause,
  /** Told the position of each event once it is applied whole. */
  applied: (position: number) => void = () => undefined,
) => {
  const position = await applyEvents(tx, projector, events, after, pause, applied)
  if (position > after) await projector.afterBatch?.(tx)
  return position
}

const applyEvents = async (
  tx: Client,
  projector: Projector,
  events: RecordedEvent[],
  after: number,
  pause: Pause,
  applied: (position: number) => void,
) => {
  if (projector.applyEvents) {
    const handled = events.filter((e) => e.position > after && handles(projector, e))
    try {
      if (handled.length > 0) await projector.applyEvents(tx, handled)
    } catch (error) {
      throw new ProjectionError(projector.name, handled[0], error)
    }
    const position = Math.max(after, events[events.length - 1]?.position ?? after)
    applied(position)
    return position
  }
  let position = after
  for (const event of events) {
    if (event.position <= after) continue
    if (handles(projector, event)) {
      await pause()
      try {
        await projector.apply(tx, event, pause)
      } catch (error) {
        throw new ProjectionError(projector.name, event, error)
      }
    }
    position = event.position
    applied(position)
  }
  return position
}

export class ProjectionError extends Error {
  constructor(
    readonly projector: string,
    readonly event: RecordedEvent,
    readonly reason: unknown,
  ) {
    super(
      `projector ${projector} failed at position ${event.position} (${event.type}): ` +
        `${(reason as Error)?.message ?? reason}`,
    )
  }
}

/**
 * Creates a projector's tables in the current search_path schema and its checkpoint row.
 * `onlyIfMissing`: for a process that only reads them (it follows another that runs the projector): the tables
 * are made if there are none, never reset for a new version (only the process running the projector does that).
 */
export const installProjector = async (db: Database, projector: Projector, { onlyIfMissing = false } = {}) => {
  await inTransaction(db.pool, async (tx) => {
    // Processes starting at once on one server install one at a time (CREATE IF NOT EXISTS races otherwise).
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('kb-install-projectors')::bigint)")
    await tx.query(checkpointSchema)
    const { rows } = await tx.query<{ version: number }>(
      'SELECT version FROM projection_checkpoints WHERE name = $1 FOR UPDATE',
      [projector.name],
    )
    if (onlyIfMissing && rows[0]) return
    await tx.query('SET LOCAL search_path TO public')
    if (rows[0]?.version === projector.version) return projector.prepare?.(tx)
    // New projector, or its meaning changed: start its tables again from position 0.
    for (const table of projector.tables) await tx.query(`DROP TABLE IF EXISTS public.${table} CASCADE`)
    await tx.query(projector.schema)
    await projector.prepare?.(tx)
    await tx.query(
      `INSERT INTO projection_checkpoints (name, position, version) VALUES ($1, 0, $2)
       ON CONFLICT (name) DO UPDATE SET position = 0, version = EXCLUDED.version, updated_at = now()`,
      [projector.name, projector.version],
    )
  })
}
