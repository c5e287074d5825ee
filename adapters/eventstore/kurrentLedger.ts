import { type Database, type Queryable, inTransaction } from '../db'
import {
  type ChainHead,
  type ChainReport,
  canonicalEvent,
  chainHead,
  type ChainTable,
  chainHeads,
  headsSchema,
  linkAfter,
  sha256,
} from './chain'
import type { RecordedEvent } from './port'

/**
 * What EventStoreDB does not keep for the service, kept in the service's database beside the
 * projections' checkpoints:
 * - the register of truncations. A stream's `$tb` hides its cut events from reads of that stream
 *   only: reads and subscriptions of `$all` still serve them until a scavenge removes them from the
 *   disk. The adapter applies the register to every `$all` read and subscription (and to stream
 *   reads, so a cut whose `$tb` was not written yet is kept all the same).
 * - the hash chain of each workspace's events, in the same rows and form as the Postgres event
 *   store's (./chain.ts), in a table of their own: links computed from the events as the log holds
 *   them, in log order.
 */
export const ledgerSchema = `
CREATE TABLE IF NOT EXISTS es_chain (
  position bigint PRIMARY KEY,
  chain text NOT NULL,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  content_hash bytea NOT NULL,
  hash bytea NOT NULL
);
CREATE INDEX IF NOT EXISTS es_chain_chain ON es_chain (chain, position);
${headsSchema}
ALTER TABLE es_chain ADD COLUMN IF NOT EXISTS time timestamptz;
ALTER TABLE es_chain ADD COLUMN IF NOT EXISTS form smallint NOT NULL DEFAULT 2;
CREATE INDEX IF NOT EXISTS es_chain_time ON es_chain (chain, time);
CREATE TABLE IF NOT EXISTS es_truncations (stream_id text PRIMARY KEY, before bigint NOT NULL);
ALTER TABLE es_chain ADD COLUMN IF NOT EXISTS outside boolean NOT NULL DEFAULT false;
CREATE TABLE IF NOT EXISTS es_appending (event_id text PRIMARY KEY);
`

/** The ledger's links, for reads of a chain at a moment. */
export const LEDGER: ChainTable = { table: 'es_chain', time: 'time' }

/**
 * Records the ids of events about to be appended, before the append: the chain then tells an event
 * this service wrote from one written straight into the server (which it chains as `outside`, and the
 * walk reports). An id recorded for an append that failed is never matched, and does no harm.
 */
export const recordAppending = (q: Queryable, ids: string[]) =>
  q.query('INSERT INTO es_appending (event_id) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING', [ids])

/** Records a cut; a cut only ever moves forward. */
export const recordTruncation = (q: Queryable, streamId: string, before: number) =>
  q.query(
    `INSERT INTO es_truncations (stream_id, before) VALUES ($1, $2)
     ON CONFLICT (stream_id) DO UPDATE SET before = greatest(es_truncations.before, EXCLUDED.before)`,
    [streamId, before],
  )

/** The cuts of these streams (a stream never cut has none). */
export const truncationsOf = async (q: Queryable, streams: string[]): Promise<Map<string, number>> => {
  if (streams.length === 0) return new Map()
  const { rows } = await q.query<{ stream_id: string; before: string }>(
    'SELECT stream_id, before FROM es_truncations WHERE stream_id = ANY($1::text[])',
    [[...new Set(streams)]],
  )
  return new Map(rows.map((r) => [r.stream_id, Number(r.before)]))
}

/** The events no cut hides. */
export const uncut = async (q: Queryable, events: RecordedEvent[]) => {
  const cuts = await truncationsOf(
    q,
    events.map((e) => e.streamId),
  )
  return events.filter((e) => e.revision >= (cuts.get(e.streamId) ?? 0))
}

/** Reads the whole log (every event, cut or not) after a position, in log order. */
export type ReadLog = (after: number, maxCount: number) => Promise<RecordedEvent[]>

const PAGE = 200

interface ChainRow {
  position: number
  chain: string
  streamId: string
  revision: number
  content: Buffer
  hash: Buffer
  time: string
  /** Not appended by this service (no id recorded before an append): written straight into the server. */
  outside: boolean
}

/**
 * Chains the events appended since the last chained one, whichever process appended them, in log
 * order. The log is read with no transaction open; the rows are written under a lock, and only if
 * no other process chained meanwhile (else the log is read again from where it now ends).
 */
export const chainPending = async (db: Database, read: ReadLog) => {
  for (;;) {
    const { rows } = await db.pool.query<{ after: string }>('SELECT coalesce(max(position), 0) AS after FROM es_chain')
    const after = Number(rows[0].after)
    const events = await read(after, PAGE)
    if (events.length === 0) return
    const heads = await chainHeads(db.pool)
    const { rows: ours } = await db.pool.query<{ event_id: string }>(
      'SELECT event_id FROM es_appending WHERE event_id = ANY($1::text[])',
      [events.map((e) => e.id)],
    )
    const appended = new Set(ours.map((r) => r.event_id))
    const links: ChainRow[] = events.map((e) => {
      const chain = e.metadata?.workspaceId ?? ''
      const content = sha256(canonicalEvent(e))
      const hash = linkAfter(heads.get(chain)?.hash, content)
      heads.set(chain, { hash, position: e.position })
      const outside = !appended.has(e.id)
      return {
        position: e.position,
        chain,
        streamId: e.streamId,
        revision: e.revision,
        content,
        hash,
        time: e.time,
        outside,
      }
    })
    const written = await inTransaction(db.pool, async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('kb-kurrent-chain')::bigint)")
      const now = await tx.query<{ after: string }>('SELECT coalesce(max(position), 0) AS after FROM es_chain')
      if (Number(now.rows[0].after) !== after) return false
      await tx.query(
        `INSERT INTO es_chain (position, chain, stream_id, revision, content_hash, hash, time, outside, form)
         SELECT *, 2 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bytea[], $6::bytea[],
           $7::timestamptz[], $8::boolean[])`,
        [
          links.map((l) => l.position),
          links.map((l) => l.chain),
          links.map((l) => l.streamId),
          links.map((l) => l.revision),
          links.map((l) => l.content),
          links.map((l) => l.hash),
          links.map((l) => l.time),
          links.map((l) => l.outside),
        ],
      )
      await tx.query('DELETE FROM es_appending WHERE event_id = ANY($1::text[])', [[...appended]])
      const last = new Map(links.map((l) => [l.chain, l]))
      await tx.query(
        `INSERT INTO es_chain_heads (chain, position, hash) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[])
         ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash`,
        [[...last.keys()], [...last.values()].map((l) => l.position), [...last.values()].map((l) => l.hash)],
      )
      return true
    })
    if (written && events.length < PAGE) return
  }
}

/**
 * Walks the chain (of one workspace, or all) against the log: each event the log still holds must
 * hash to its content hash (an event a cut hides counts as cut, held or not: a scavenge removes
 * it some day), each link must follow from the one before, an event the log no longer holds must be
 * below its stream's cut, and every event of the log must be chained. Stops at the first break.
 */
export const verifyLedger = async (db: Database, read: ReadLog, chain?: string): Promise<ChainReport> => {
  const links = new Map<string, Buffer>()
  const heads = new Map<string, ChainHead>()
  let verified = 0
  let cut = 0
  const report = (broken?: ChainReport['broken']): ChainReport => ({
    chains: [...heads.values()],
    verified,
    cut,
    ...(broken ? { broken } : {}),
  })
  const broken = (r: { chain: string; position: number; streamId: string; revision: number }, reason: string) =>
    report({ chain: r.chain, position: r.position, streamId: r.streamId, revision: r.revision, reason })
  for (let after = 0; ; ) {
    const { rows } = await db.pool.query<{
      position: string
      chain: string
      stream_id: string
      revision: string
      content_hash: Buffer
      hash: Buffer
      outside: boolean
    }>(
      `SELECT position, chain, stream_id, revision, content_hash, hash, outside FROM es_chain WHERE position > $1
       ORDER BY position LIMIT ${PAGE}`,
      [after],
    )
    if (rows.length === 0) break
    const upTo = Number(rows[rows.length - 1].position)
    // The log's events over the same stretch, chained or not.
    const logged: RecordedEvent[] = []
    for (let from = after; ; ) {
      const page = (await read(from, PAGE)).filter((e) => e.position <= upTo)
      logged.push(...page)
      if (page.length < PAGE) break
      from = page[page.length - 1].position
    }
    const chained = new Set(rows.map((r) => Number(r.position)))
    const stray = logged.find((e) => !chained.has(e.position))
    const byPosition = new Map(logged.map((e) => [e.position, e]))
    const cuts = await truncationsOf(
      db.pool,
      rows.map((r) => r.stream_id),
    )
    for (const row of rows) {
      const r = {
        chain: row.chain,
        position: Number(row.position),
        streamId: row.stream_id,
        revision: Number(row.revision),
      }
      if (stray && stray.position < r.position)
        return broken(
          { ...stray, chain: stray.metadata?.workspaceId ?? '' },
          'the event is not in the chain: it was added outside an append',
        )
      if (row.outside) return broken(r, 'the event was added outside an append: this service did not write it')
      if (chain !== undefined && r.chain !== chain) continue
      const event = byPosition.get(r.position)
      if (r.revision < (cuts.get(r.streamId) ?? 0)) cut++
      else if (!event)
        return broken(r, 'the event was deleted: it is missing from the store, and no deletion of its stream cut it')
      else if (event.streamId !== r.streamId || event.revision !== r.revision)
        return broken(r, 'the event was moved: its stream or revision is not the one chained')
      else if (!sha256(canonicalEvent(event)).equals(row.content_hash))
        return broken(r, 'the event was edited: it no longer has its hash')
      else verified++
      const link = linkAfter(links.get(r.chain), row.content_hash)
      if (!link.equals(row.hash)) return broken(r, "the chain was altered: this event's link does not follow")
      links.set(r.chain, link)
      heads.set(r.chain, { chain: r.chain, position: r.position, hash: link.toString('hex') })
    }
    after = upTo
  }
  for (const head of heads.values()) {
    const stored = await chainHead(db.pool, head.chain)
    if (stored?.hash !== head.hash || stored.position !== head.position)
      return broken({ chain: head.chain, position: head.position, streamId: '', revision: 0 }, 'the head was altered')
  }
  return report()
}
