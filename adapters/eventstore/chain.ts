import { createHash } from 'node:crypto'
import type { Queryable } from '../db'

/**
 * The hash chain of the Postgres event store: each workspace's events (and, as chain '', the events
 * of no workspace) are chained in log order. An event's content hash is the SHA-256 of its
 * canonical form; its link is SHA-256(previous link ‖ content hash). Both are written with the
 * event, in the append's transaction. Content cut by a deletion takes its event rows but leaves
 * their chain rows: the chain still verifies without the content, and the stream records how far
 * it was cut, so a row removed by hand is told apart from a cut.
 *
 * Two canonical forms, recorded per row (`form`): 2, computed in TypeScript by the appender for the
 * whole batch (id, stream, type, data and metadata as one JSON array with object keys sorted; the
 * row's stream and revision are checked against the event's on their own); 1, of chains written
 * before, by Postgres (id, stream, revision, type, data and metadata in its jsonb rendering).
 */
export const chainTablesSchema = `
CREATE TABLE IF NOT EXISTS es_chain (
  position bigint PRIMARY KEY,
  chain text NOT NULL,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  content_hash bytea NOT NULL,
  hash bytea NOT NULL
);
CREATE INDEX IF NOT EXISTS es_chain_chain ON es_chain (chain, position);
CREATE TABLE IF NOT EXISTS es_chain_heads (chain text PRIMARY KEY, position bigint NOT NULL, hash bytea NOT NULL);
`

/** The chain of the events in the database's own tables: its rows, with what reads and links them there. */
export const chainSchema = `
${chainTablesSchema}
ALTER TABLE es_streams ADD COLUMN IF NOT EXISTS truncated_before bigint NOT NULL DEFAULT 0;
-- Each chained event's time, which outlives a cut of its content: "as of" a moment resolves to a
-- position through it. Chains older than the column take the time of the events still stored.
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'es_chain' AND column_name = 'time'
      AND table_schema = current_schema()) THEN
    ALTER TABLE es_chain ADD COLUMN time timestamptz;
    UPDATE es_chain c SET time = e.created_at FROM es_events e WHERE e.position = c.position;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS es_chain_time ON es_chain (chain, time);
ALTER TABLE es_chain ADD COLUMN IF NOT EXISTS form smallint NOT NULL DEFAULT 1;
CREATE OR REPLACE FUNCTION es_canonical(e es_events) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT convert_to(jsonb_build_array(e.event_id::text, e.stream_id, e.revision, e.type, e.data, e.metadata)::text,
    'UTF8')
$$;
-- Chains the events after the last chained one, in log order (called under the append lock at the
-- end of each append batch, and once for a database older than the chain): a chain's head is read
-- when the walk comes to its events and written when it leaves them.
CREATE OR REPLACE FUNCTION es_chain_pending() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ev es_events;
  link bytea;
  content bytea;
  ch text;
  cur text := NULL;
  last_pos bigint;
BEGIN
  FOR ev IN SELECT * FROM es_events WHERE position > (SELECT coalesce(max(position), 0) FROM es_chain)
      ORDER BY position LOOP
    ch := coalesce(ev.metadata->>'workspaceId', '');
    IF cur IS DISTINCT FROM ch THEN
      IF cur IS NOT NULL THEN
        INSERT INTO es_chain_heads VALUES (cur, last_pos, link)
          ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash;
      END IF;
      cur := ch;
      link := NULL;
      SELECT hash INTO link FROM es_chain_heads WHERE chain = ch;
    END IF;
    content := sha256(es_canonical(ev));
    link := sha256(coalesce(link, ''::bytea) || content);
    INSERT INTO es_chain (position, chain, stream_id, revision, content_hash, hash, time)
      VALUES (ev.position, ch, ev.stream_id, ev.revision, content, link, ev.created_at);
    last_pos := ev.position;
  END LOOP;
  IF cur IS NOT NULL THEN
    INSERT INTO es_chain_heads VALUES (cur, last_pos, link)
      ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash;
  END IF;
END
$$;
`

/** Chains the events appended before the chain existed (a database older than it), in log order. */
export const chainUnchained = async (q: Queryable) => {
  await q.query('SELECT es_chain_pending()')
}

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

/**
 * The last event of a chain at or before a moment (a time, or a log position), counting events
 * whose content a deletion cut: their chain rows keep the position and the time.
 */
export const lastChainedAt = async (q: Queryable, chain: string, at: { time: Date } | { position: number }) => {
  const { rows } = await q.query<{ position: number; time: Date | null }>(
    'time' in at
      ? `SELECT position, time FROM es_chain WHERE chain = $1 AND time <= $2 ORDER BY time DESC, position DESC LIMIT 1`
      : 'SELECT position, time FROM es_chain WHERE chain = $1 AND position <= $2 ORDER BY position DESC LIMIT 1',
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

interface Row {
  position: number
  chain: string
  stream_id: string
  revision: number
  content_hash: Buffer
  hash: Buffer
  form: number
  present: boolean
  computed: Buffer | null
  truncated_before: number | null
  /** The stored event, for a form-2 row (its hash is computed here). */
  event_id: string | null
  event_stream: string | null
  event_revision: number | null
  type: string | null
  data: unknown
  metadata: unknown
}

/** A present event's content hash as its row's form computes it, or why it cannot match. */
const computedHash = (r: Row): Buffer | string =>
  r.form === 1
    ? r.computed!
    : r.event_stream !== r.stream_id || Number(r.event_revision) !== Number(r.revision)
      ? 'the event was moved: its stream or revision is not the one chained'
      : sha256(
          canonicalEvent({
            id: r.event_id!,
            streamId: r.event_stream!,
            type: r.type!,
            data: r.data,
            metadata: r.metadata,
          }),
        )

/** Chain rows read at once: form-2 rows bring their event's content (a page version holds up to 500,000 characters). */
const PAGE = 200

/**
 * Walks the chain (of one workspace, or all of them) from its start: each event still stored must
 * hash to its content hash, each link must follow from the one before, an event missing from the
 * store must be below its stream's cut, and every stored event must be chained. Stops at the first
 * break, naming it.
 */
export const verifyChain = async (q: Queryable, chain?: string): Promise<ChainReport> => {
  const links = new Map<string, Buffer>()
  const heads = new Map<string, ChainHead>()
  let verified = 0
  let cut = 0
  const broken = (r: Row, reason: string): ChainReport => ({
    chains: [...heads.values()],
    verified,
    cut,
    broken: { chain: r.chain, position: r.position, streamId: r.stream_id, revision: r.revision, reason },
  })
  for (let after = 0; ; ) {
    const { rows } = await q.query<Row>(
      `SELECT c.position, c.chain, c.stream_id, c.revision, c.content_hash, c.hash, c.form,
         e.position IS NOT NULL AS present,
         CASE WHEN e.position IS NOT NULL AND c.form = 1 THEN sha256(es_canonical(e)) END AS computed,
         CASE WHEN c.form = 2 THEN e.event_id::text END AS event_id, e.stream_id AS event_stream,
         e.revision AS event_revision, CASE WHEN c.form = 2 THEN e.type END AS type,
         CASE WHEN c.form = 2 THEN e.data END AS data, CASE WHEN c.form = 2 THEN e.metadata END AS metadata,
         -- A cut is only where the stream still holds the deletion it was cut for.
         (SELECT s.truncated_before FROM es_streams s JOIN es_events d ON d.stream_id = s.stream_id
            AND d.revision = s.truncated_before AND d.type LIKE '%Deleted'
          WHERE s.stream_id = c.stream_id) AS truncated_before
       FROM es_chain c LEFT JOIN es_events e ON e.position = c.position
       WHERE c.position > $1 AND ($2::text IS NULL OR c.chain = $2) ORDER BY c.position LIMIT ${PAGE}`,
      [after, chain ?? null],
    )
    for (const r of rows) {
      if (r.present) {
        const computed = computedHash(r)
        if (typeof computed === 'string') return broken(r, computed)
        if (!computed.equals(r.content_hash)) return broken(r, 'the event was edited: it no longer has its hash')
        verified++
      } else if (r.revision < (r.truncated_before ?? 0)) cut++
      else return broken(r, 'the event was deleted: it is missing from the store, and no deletion of its stream cut it')
      const link = linkAfter(links.get(r.chain), r.content_hash)
      if (!link.equals(r.hash)) return broken(r, "the chain was altered: this event's link does not follow")
      links.set(r.chain, link)
      heads.set(r.chain, { chain: r.chain, position: r.position, hash: link.toString('hex') })
    }
    if (rows.length < PAGE) break
    after = rows[rows.length - 1].position
  }
  const { rows: unchained } = await q.query<Row>(
    `SELECT e.position, coalesce(e.metadata->>'workspaceId', '') AS chain, e.stream_id, e.revision FROM es_events e
     WHERE NOT EXISTS (SELECT 1 FROM es_chain c WHERE c.position = e.position)
       AND ($1::text IS NULL OR coalesce(e.metadata->>'workspaceId', '') = $1) ORDER BY e.position LIMIT 1`,
    [chain ?? null],
  )
  if (unchained[0]) return broken(unchained[0], 'the event is not in the chain: it was added outside an append')
  for (const head of heads.values()) {
    const stored = await chainHead(q, head.chain)
    if (stored?.hash !== head.hash || stored.position !== head.position)
      return {
        chains: [...heads.values()],
        verified,
        cut,
        broken: {
          chain: head.chain,
          position: head.position,
          streamId: '',
          revision: 0,
          reason: 'the head was altered',
        },
      }
  }
  return { chains: [...heads.values()], verified, cut }
}
