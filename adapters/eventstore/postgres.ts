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

const eventStoreSchema = `
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
-- One round trip per append: lock, check the expected revision, insert, move the stream head.
CREATE OR REPLACE FUNCTION es_append(p_stream text, p_expected text, p_ids uuid[], p_types text[], p_data jsonb[], p_metadata jsonb[], p_notify boolean)
RETURNS TABLE (next_revision bigint, last_position bigint, actual_revision text) LANGUAGE plpgsql AS $$
DECLARE
  actual bigint;
  first_revision bigint;
  last_pos bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  SELECT s.revision INTO actual FROM es_streams s WHERE s.stream_id = p_stream;
  IF NOT (p_expected = 'any'
      OR (p_expected = 'no_stream' AND actual IS NULL)
      OR (p_expected = 'stream_exists' AND actual IS NOT NULL)
      OR (p_expected ~ '^[0-9]+$' AND actual IS NOT NULL AND actual = p_expected::bigint)) THEN
    -- Answered as a row, not raised: PGlite's node-postgres bridge mishandles errors raised mid-query.
    RETURN QUERY SELECT NULL::bigint, NULL::bigint, coalesce(actual::text, 'no_stream');
    RETURN;
  END IF;
  first_revision := coalesce(actual + 1, 0);
  WITH ins AS (
    INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata)
    SELECT p_stream, first_revision + e.n - 1, e.id, e.type, e.data, e.metadata
    FROM unnest(p_ids, p_types, p_data, p_metadata) WITH ORDINALITY AS e(id, type, data, metadata, n)
    ORDER BY e.n
    RETURNING es_events.position
  ) SELECT max(ins.position) INTO last_pos FROM ins;
  INSERT INTO es_streams AS s (stream_id, revision) VALUES (p_stream, first_revision + cardinality(p_ids) - 1)
  ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision;
  IF p_notify THEN PERFORM pg_notify('${NOTIFY_CHANNEL}', last_pos::text); END IF;
  RETURN QUERY SELECT first_revision + cardinality(p_ids) - 1, last_pos, NULL::text;
END
$$;
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

export class PostgresEventStore implements EventStore {
  private readonly local = new EventEmitter()
  private listener?: pg.Client

  private constructor(private readonly db: Database) {
    this.local.setMaxListeners(0)
  }

  static async open(db: Database): Promise<PostgresEventStore> {
    // Several processes may open one server database at once; DDL runs one at a time.
    await inTransaction(db.pool, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [APPEND_LOCK + 1])
      await tx.query(eventStoreSchema)
    })
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
    const { rows } = await this.db.pool.query<{ next_revision: number | null; last_position: number | null; actual_revision: string | null }>(
      'SELECT next_revision, last_position, actual_revision FROM es_append($1, $2, $3::uuid[], $4::text[], $5::jsonb[], $6::jsonb[], $7)',
      [
        streamId,
        String(expected),
        events.map((e) => e.id),
        events.map((e) => e.type),
        events.map((e) => JSON.stringify(e.data)),
        events.map((e) => JSON.stringify(e.metadata)),
        this.db.kind === 'postgres',
      ],
    )
    const [row] = rows
    if (row.actual_revision !== null) {
      throw new WrongExpectedVersion(streamId, expected, row.actual_revision === 'no_stream' ? 'no_stream' : Number(row.actual_revision))
    }
    this.local.emit('append')
    return { nextExpectedRevision: row.next_revision!, position: row.last_position! }
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
