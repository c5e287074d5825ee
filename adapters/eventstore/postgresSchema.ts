import type { RecordedEvent } from './port'

// The Postgres event store's tables, its append function (./postgres.ts calls it), and its rows as events.

export const NOTIFY_CHANNEL = 'kb_events'
// One advisory lock orders all appends: positions are taken and committed one transaction at a
// time, so a reader that saw position N can never later find a committed event below N.
export const APPEND_LOCK = 7_300_001

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
-- One round trip for a batch of appends (each with its own stream and expected revision), in one
-- transaction under the append lock: concurrent appends of a process share one commit. The caller
-- links the batch's events into their chains (content hashes and links, computed in TypeScript)
-- from the heads it expects; nothing is written when a head moved (another process appended to
-- that chain: the heads come back, to link again from) or when an expected revision does not
-- hold (those are answered, to be retried without them). The loops run per stream, not per event.
-- Replaced in place (an append of another process meanwhile keeps working); dropped first only
-- where an older shape of it answers other columns.
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_proc WHERE proname = 'es_append_chained'
      AND pg_get_function_result(oid) NOT LIKE '%head_position%') THEN
    DROP FUNCTION es_append_chained(text[], text[], int[], uuid[], text[], jsonb[], jsonb[], boolean, text[],
      bytea[], bytea[], text[], bytea[]);
  END IF;
END $$;
CREATE OR REPLACE FUNCTION es_append_chained(p_streams text[], p_expected text[], p_counts int[], p_ids uuid[],
  p_types text[], p_data jsonb[], p_metadata jsonb[], p_notify boolean, p_chains text[], p_contents bytea[],
  p_links bytea[], p_head_chains text[], p_head_hashes bytea[])
RETURNS TABLE (idx int, next_revision bigint, last_position bigint, actual_revision text, head_chain text,
  head_hash bytea, head_position bigint) LANGUAGE plpgsql AS $$
DECLARE
  actual bigint;
  actuals bigint[] := '{}';
  first_revision bigint;
  last_pos bigint;
  positions bigint[] := '{}';
  revisions bigint[] := '{}';
  event_streams text[] := '{}';
  lo int := 1;
  hi int;
  refused boolean := false;
  earlier int;
  accepted boolean[] := '{}';
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  IF EXISTS (SELECT 1 FROM unnest(p_head_chains, p_head_hashes) AS x(chain, hash)
      LEFT JOIN es_chain_heads h ON h.chain = x.chain WHERE h.hash IS DISTINCT FROM x.hash) THEN
    RETURN QUERY SELECT NULL::int, NULL::bigint, NULL::bigint, NULL::text, x.chain, h.hash, h.position
      FROM unnest(p_head_chains) AS x(chain) LEFT JOIN es_chain_heads h ON h.chain = x.chain;
    RETURN;
  END IF;
  FOR i IN 1 .. cardinality(p_streams) LOOP
    -- A stream the batch appends to twice: the second append is checked against the first's result.
    earlier := (SELECT max(j) FROM unnest(array_positions(p_streams[1:i - 1], p_streams[i])) AS j);
    IF earlier IS NULL THEN
      SELECT s.revision INTO actual FROM es_streams s WHERE s.stream_id = p_streams[i];
    ELSIF accepted[earlier] THEN
      actual := coalesce(actuals[earlier], -1) + p_counts[earlier];
    ELSE
      actual := actuals[earlier];
    END IF;
    actuals := actuals || actual;
    accepted := accepted || (p_expected[i] = 'any'
        OR (p_expected[i] = 'no_stream' AND actual IS NULL)
        OR (p_expected[i] = 'stream_exists' AND actual IS NOT NULL)
        OR (p_expected[i] ~ '^[0-9]+$' AND actual IS NOT NULL AND actual = p_expected[i]::bigint));
    IF NOT accepted[i] THEN
      -- Answered as a row, not raised: PGlite's node-postgres bridge mishandles errors raised mid-query.
      RETURN QUERY SELECT i, NULL::bigint, NULL::bigint, coalesce(actual::text, 'no_stream'), NULL::text, NULL::bytea,
        NULL::bigint;
      refused := true;
    END IF;
  END LOOP;
  IF refused THEN RETURN; END IF;
  FOR i IN 1 .. cardinality(p_streams) LOOP
    hi := lo + p_counts[i] - 1;
    -- The revision read by the check, unless this batch appended to the stream already.
    actual := actuals[i];
    IF p_streams[i] = ANY(p_streams[1:i - 1]) THEN
      SELECT s.revision INTO actual FROM es_streams s WHERE s.stream_id = p_streams[i];
    END IF;
    first_revision := coalesce(actual + 1, 0);
    WITH ins AS (
      INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata)
      SELECT p_streams[i], first_revision + e.n - 1, e.id, e.type, e.data, e.metadata
      FROM unnest(p_ids[lo:hi], p_types[lo:hi], p_data[lo:hi], p_metadata[lo:hi])
         WITH ORDINALITY AS e(id, type, data, metadata, n)
      ORDER BY e.n
      RETURNING es_events.position
    ) SELECT max(ins.position) INTO last_pos FROM ins;
    -- Positions are taken in order under the lock: the stream's events hold the last p_counts[i].
    positions := positions || ARRAY(SELECT generate_series(last_pos - p_counts[i] + 1, last_pos));
    revisions := revisions || ARRAY(SELECT generate_series(first_revision, first_revision + p_counts[i] - 1));
    event_streams := event_streams || array_fill(p_streams[i], ARRAY[p_counts[i]]);
    INSERT INTO es_streams AS s (stream_id, revision) VALUES (p_streams[i], first_revision + p_counts[i] - 1)
    ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision;
    RETURN QUERY SELECT i, first_revision + p_counts[i] - 1, last_pos, NULL::text, NULL::text, NULL::bytea,
      NULL::bigint;
    lo := hi + 1;
  END LOOP;
  INSERT INTO es_chain (position, chain, stream_id, revision, content_hash, hash, time, form)
  SELECT c.position, c.chain, c.stream, c.revision, c.content, c.link, now(), 2
  FROM unnest(positions, p_chains, event_streams, revisions, p_contents, p_links)
    AS c(position, chain, stream, revision, content, link);
  INSERT INTO es_chain_heads (chain, position, hash)
  SELECT DISTINCT ON (c.chain) c.chain, c.position, c.link
  FROM unnest(p_chains, positions, p_links) WITH ORDINALITY AS c(chain, position, link, n)
  ORDER BY c.chain, c.n DESC
  ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash;
  IF p_notify THEN PERFORM pg_notify('${NOTIFY_CHANNEL}', last_pos::text); END IF;
END
$$;
`

/** A row of the events table as the driver reads it. */
export interface Row {
  position: number
  stream_id: string
  revision: number
  event_id: string
  type: string
  data: unknown
  metadata: RecordedEvent['metadata']
  created_at: Date
}

export const toRecorded = (r: Row): RecordedEvent => ({
  id: r.event_id,
  type: r.type,
  data: r.data,
  metadata: r.metadata,
  streamId: r.stream_id,
  revision: r.revision,
  position: r.position,
  time: r.created_at.toISOString(),
})

/** The columns a read selects, in the order `toRecorded` expects. */
export const COLUMNS = 'position, stream_id, revision, event_id, type, data, metadata, created_at'
