import type { Queryable } from '../db'
import {
  type ChainHead,
  type ChainReport,
  type ChainTable,
  canonicalEvent,
  chainHead,
  linkAfter,
  sha256,
} from './chain'

/**
 * The hash chain of the Postgres event store, kept in the events' own rows (chain, content hash,
 * link), written with the event in the append's statement. A deletion's cut empties its events'
 * content and leaves their rows: the chain still verifies without the content, and the stream
 * records how far it was cut, so a row emptied by hand is told apart from a cut.
 *
 * Two canonical forms, recorded per row (`form`): 2, computed in TypeScript by the appender for the
 * whole batch (id, stream, type, data and metadata as one JSON array with object keys sorted; the
 * revision is checked on its own, against the stream's revision before); 1, of chains written
 * before, by Postgres (id, stream, revision, type, data and metadata in its jsonb rendering).
 */
export const chainSchema = `
CREATE OR REPLACE FUNCTION es_canonical(e es_events) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
  SELECT convert_to(jsonb_build_array(e.event_id::text, e.stream_id, e.revision, e.type, e.data, e.metadata)::text,
    'UTF8')
$$;
-- Chains the events after the last chained one, in log order, in form 1 (once, for a log older
-- than the chain): a chain's head is read when the walk comes to its events and written when it
-- leaves them.
CREATE OR REPLACE FUNCTION es_chain_pending() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ev es_events;
  link bytea;
  content bytea;
  ch text;
  cur text := NULL;
  last_pos bigint;
BEGIN
  FOR ev IN SELECT * FROM es_events WHERE hash IS NULL
      AND position > (SELECT coalesce(max(position), 0) FROM es_events WHERE hash IS NOT NULL) ORDER BY position LOOP
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
    UPDATE es_events SET chain = ch, content_hash = content, hash = link, form = 1 WHERE position = ev.position;
    last_pos := ev.position;
  END LOOP;
  IF cur IS NOT NULL THEN
    INSERT INTO es_chain_heads VALUES (cur, last_pos, link)
      ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash;
  END IF;
END
$$;
`

/** The links' place: the events' rows, timed by their append. */
export const EVENTS: ChainTable = { table: 'es_events', time: 'created_at' }

/** Chains the events appended before the chain existed (a log older than it), in log order. */
export const chainUnchained = async (q: Queryable) => {
  await q.query('SELECT es_chain_pending()')
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
  /**
   * A form-2 row: the stream's event before it stands before it in the log (or it is the stream's
   * first). A form-1 row's hash holds its revision.
   */
  follows: boolean
  truncated_before: number | null
  /** The stored event, for a form-2 row (its hash is computed here). */
  event_id: string | null
  type: string | null
  data: unknown
  metadata: unknown
}

/** Why a present event's row does not hold what was chained, if it does not. */
const alteration = (r: Row): string | undefined => {
  const computed =
    r.form === 1
      ? r.computed!
      : sha256(
          canonicalEvent({ id: r.event_id!, streamId: r.stream_id, type: r.type!, data: r.data, metadata: r.metadata }),
        )
  if (!computed.equals(r.content_hash)) return 'the event was edited: it no longer has its hash'
  if (!r.follows) return "the event was moved: its revision does not follow its stream's event before it"
}

/** Rows read at once: present form-2 rows bring their content (a page version holds up to 500,000 characters). */
const PAGE = 200

/**
 * Walks the chain (of one workspace, or all of them) from its start: each event still stored must
 * hash to its content hash and follow its stream's event before it, each link must follow from the
 * one before, an emptied event must be below its stream's cut, every stored event must be chained,
 * and the walk must end on the head kept apart. Stops at the first break, naming it.
 */
export const verifyChain = async (q: Queryable, chain?: string): Promise<ChainReport> => {
  const links = new Map<string, Buffer>()
  const heads = new Map<string, ChainHead>()
  let verified = 0
  let cut = 0
  const broken = (r: Pick<Row, 'chain' | 'position' | 'stream_id' | 'revision'>, reason: string): ChainReport => ({
    chains: [...heads.values()],
    verified,
    cut,
    broken: { chain: r.chain, position: r.position, streamId: r.stream_id, revision: r.revision, reason },
  })
  for (let after = 0; ; ) {
    const { rows } = await q.query<Row>(
      `SELECT e.position, e.chain, e.stream_id, e.revision, e.content_hash, e.hash, e.form,
         e.data IS NOT NULL AS present,
         CASE WHEN e.data IS NOT NULL AND e.form = 1 THEN sha256(es_canonical(e)) END AS computed,
         CASE WHEN e.form = 2 THEN e.event_id::text END AS event_id, CASE WHEN e.form = 2 THEN e.type END AS type,
         CASE WHEN e.form = 2 THEN e.data END AS data, CASE WHEN e.form = 2 THEN e.metadata END AS metadata,
         -- A cut is only where the stream still holds the deletion it was cut for.
         t.cut AS truncated_before,
         e.form <> 2 OR e.revision = 0 OR EXISTS (SELECT 1 FROM es_events p
           WHERE p.stream_id = e.stream_id AND p.revision = e.revision - 1 AND p.position < e.position) AS follows
       FROM es_events e
       LEFT JOIN LATERAL (SELECT s.truncated_before AS cut FROM es_streams s JOIN es_events d
           ON d.stream_id = s.stream_id AND d.revision = s.truncated_before AND d.type LIKE '%Deleted'
         WHERE s.stream_id = e.stream_id) t ON true
       WHERE e.position > $1 AND e.hash IS NOT NULL AND ($2::text IS NULL OR e.chain = $2)
       ORDER BY e.position LIMIT ${PAGE}`,
      [after, chain ?? null],
    )
    for (const r of rows) {
      if (r.present) {
        const reason = alteration(r)
        if (reason) return broken(r, reason)
        verified++
      } else if (r.revision < (r.truncated_before ?? 0)) cut++
      else return broken(r, 'the event was emptied: its content is gone, and no deletion of its stream cut it')
      const link = linkAfter(links.get(r.chain), r.content_hash)
      if (!link.equals(r.hash))
        return broken(
          r,
          "the chain was altered: this event's link does not follow " +
            '(an event before it was deleted, or a link changed)',
        )
      links.set(r.chain, link)
      heads.set(r.chain, { chain: r.chain, position: r.position, hash: link.toString('hex') })
    }
    if (rows.length < PAGE) break
    after = rows[rows.length - 1].position
  }
  const { rows: unchained } = await q.query<Row>(
    `SELECT position, coalesce(metadata->>'workspaceId', '') AS chain, stream_id, revision FROM es_events
     WHERE hash IS NULL AND ($1::text IS NULL OR coalesce(metadata->>'workspaceId', '') = $1)
     ORDER BY position LIMIT 1`,
    [chain ?? null],
  )
  if (unchained[0]) return broken(unchained[0], 'the event is not in the chain: it was added outside an append')
  for (const head of heads.values()) {
    const stored = await chainHead(q, head.chain)
    if (stored?.hash !== head.hash || stored.position !== head.position)
      return broken(
        { chain: head.chain, position: head.position, stream_id: '', revision: 0 },
        'the head was altered, or the last events were deleted',
      )
  }
  return { chains: [...heads.values()], verified, cut }
}
