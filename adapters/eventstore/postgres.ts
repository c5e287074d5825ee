import { EventEmitter } from 'node:events'
import pg from 'pg'
import type { Database, Queryable } from '../db'
import { inTransaction } from '../db'
import {
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  WrongExpectedVersion,
} from './port'
import { pollingSubscription } from './subscription'

const NOTIFY_CHANNEL = 'kb_events'
// One advisory lock orders all appends: positions are taken and committed one transaction at a
// time, so a reader that saw position N can never later find a committed event below N.
const APPEND_LOCK = 7_300_001

export const eventStoreSchema = `
CREATE TABLE IF NOT EXISTS es_events (
  position bigserial PRIMARY KEY,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE,
  type text NOT NULL,
  data jsonb NOT NULL,
  metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (stream_id, revision)
);
CREATE TABLE IF NOT EXISTS es_streams (
  stream_id text PRIMARY KEY,
  revision bigint NOT NULL
);
`

interface Row {
  position: number
  stream_id: string
  revision: number
  event_id: string
  type: string
  data: unknown
  metadata: RecordedEvent['metadata']
  created_at: Date
}

const toRecorded = (r: Row): RecordedEvent => ({
  id: r.event_id,
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  streamId: r.stream_id,
  revision: r.revision,
  position: r.position,
  time: r.created_at.toISOString(),
})

const COLUMNS = 'position, stream_id, revision, event_id, type, data, metadata, created_at'

const checkExpected = (streamId: string, expected: ExpectedRevision, actual: number | 'no_stream') => {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && actual === 'no_stream') ||
    (expected === 'stream_exists' && actual !== 'no_stream') ||
    expected === actual
  if (!ok) throw new WrongExpectedVersion(streamId, expected, actual)
}

export class PostgresEventStore implements EventStore {
  private readonly local = new EventEmitter()
  private listener?: pg.Client

  private constructor(private readonly db: Database) {
    this.local.setMaxListeners(0)
  }

  static async open(db: Database): Promise<PostgresEventStore> {
    await db.pool.query(eventStoreSchema)
    const store = new PostgresEventStore(db)
    if (db.url) await store.listen(db.url)
    return store
  }

  /** Other processes' appends arrive as NOTIFY; a lost connection falls back to polling. */
  private async listen(url: string) {
    const client = new pg.Client({ connectionString: url })
    client.on('error', () => undefined)
    client.on('notification', () => this.local.emit('append'))
    await client.connect()
    await client.query(`LISTEN ${NOTIFY_CHANNEL}`)
    this.listener = client
  }

  async append(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event')
    const result = await inTransaction(this.db.pool, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK])
      const actual = await this.revisionOf(tx, streamId)
      checkExpected(streamId, expected, actual)
      const first = actual === 'no_stream' ? 0 : actual + 1
      const inserted = await tx.query<{ position: number }>(
        `INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata)
         SELECT $1, $2::bigint + n - 1, id, type, data, metadata
         FROM unnest($3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[]) WITH ORDINALITY AS e(id, type, data, metadata, n)
         ORDER BY n
         RETURNING position`,
        [
          streamId,
          first,
          events.map((e) => e.id),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => JSON.stringify(e.metadata)),
        ],
      )
      const last = first + events.length - 1
      await tx.query(
        `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2)
         ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision`,
        [streamId, last],
      )
      const position = Math.max(...inserted.rows.map((r) => r.position))
      if (this.db.kind === 'postgres') await tx.query('SELECT pg_notify($1, $2)', [NOTIFY_CHANNEL, String(position)])
      return { nextExpectedRevision: last, position }
    })
    this.local.emit('append')
    return result
  }

  private async revisionOf(q: Queryable, streamId: string): Promise<number | 'no_stream'> {
    const { rows } = await q.query<{ revision: number }>('SELECT revision FROM es_streams WHERE stream_id = $1', [streamId])
    return rows.length === 0 ? 'no_stream' : rows[0].revision
  }

  streamRevision(streamId: string) {
    return this.revisionOf(this.db.pool, streamId)
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await this.db.pool.query<Row>(
      `SELECT ${COLUMNS} FROM es_events WHERE stream_id = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      [streamId, options.fromRevision ?? 0, options.maxCount ?? null],
    )
    return rows.map(toRecorded)
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const { rows } = await this.db.pool.query<Row>(
      `SELECT ${COLUMNS} FROM es_events WHERE position > $1 ORDER BY position LIMIT $2`,
      [options.after ?? 0, options.maxCount ?? null],
    )
    return rows.map(toRecorded)
  }

  async headPosition(): Promise<number> {
    const { rows } = await this.db.pool.query<{ head: number | null }>('SELECT max(position) AS head FROM es_events')
    return rows[0].head ?? 0
  }

  subscribeToAll(options: { after?: number }, handler: (event: RecordedEvent) => Promise<void>) {
    return pollingSubscription(this, options.after ?? 0, handler)
  }

  onAppend(listener: () => void) {
    this.local.on('append', listener)
    return () => void this.local.off('append', listener)
  }

  async close() {
    this.local.removeAllListeners()
    await this.listener?.end().catch(() => undefined)
  }
}
