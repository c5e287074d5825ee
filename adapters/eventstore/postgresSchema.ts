import { headsSchema } from './chain'

// The Postgres event store's table and its append function (./postgres.ts calls it).

export const NOTIFY_CHANNEL = 'kb_events'
// One advisory lock orders all appends: positions are taken and committed one transaction at a
// time, so a reader that saw position N can never later find a committed event below N.
export const APPEND_LOCK = 7_300_001

/**
 * One row per event, its link in the workspace's hash chain in the same row (./postgresChain.ts
 * reads and checks them). A stream's revision is read from the (stream, revision) index. A
 * deletion's cut keeps the row with its place, time and hashes, and empties the rest, whole
 * (`data IS NULL`, and type and metadata with it); `es_streams` holds each cut stream's cut.
 */
export const eventStoreSchema = `
CREATE TABLE IF NOT EXISTS es_events (
  position bigserial PRIMARY KEY,
  stream_id text NOT NULL,
  revision bigint NOT NULL,
  event_id uuid UNIQUE,
  type text,
  data jsonb,
  metadata jsonb,
  created_at timestamptz DEFAULT now(),
  chain text,
  content_hash bytea,
  hash bytea,
  form smallint,
  UNIQUE (stream_id, revision),
  CONSTRAINT es_events_emptied_whole CHECK ((data IS NULL) = (type IS NULL) AND (data IS NULL) = (metadata IS NULL))
);
CREATE TABLE IF NOT EXISTS es_streams (stream_id text PRIMARY KEY);
ALTER TABLE es_streams ADD COLUMN IF NOT EXISTS truncated_before bigint NOT NULL DEFAULT 0;
${headsSchema}
-- A log of the shape before: each event's link in a table of its own (es_chain), and each stream's
-- revision in es_streams. The links move into their events' rows; a link whose event a deletion
-- cut becomes a cut row. (A Kurrent ledger's es_chain, with its column "outside", is not a log's.)
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
      AND table_name = 'es_events' AND column_name = 'hash') THEN
    ALTER TABLE es_events ADD COLUMN chain text, ADD COLUMN content_hash bytea, ADD COLUMN hash bytea,
      ADD COLUMN form smallint, ALTER COLUMN event_id DROP NOT NULL, ALTER COLUMN type DROP NOT NULL,
      ALTER COLUMN data DROP NOT NULL, ALTER COLUMN metadata DROP NOT NULL, ALTER COLUMN created_at DROP NOT NULL,
      ADD CONSTRAINT es_events_emptied_whole
        CHECK ((data IS NULL) = (type IS NULL) AND (data IS NULL) = (metadata IS NULL));
    IF to_regclass('es_chain') IS NOT NULL AND NOT EXISTS (SELECT 1 FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = 'es_chain' AND column_name = 'outside') THEN
      ALTER TABLE es_chain ADD COLUMN IF NOT EXISTS time timestamptz;
      ALTER TABLE es_chain ADD COLUMN IF NOT EXISTS form smallint NOT NULL DEFAULT 1;
      UPDATE es_events e SET chain = c.chain, content_hash = c.content_hash, hash = c.hash, form = c.form
        FROM es_chain c WHERE c.position = e.position;
      -- A link of an event cut before the chain kept times has none: its row's time stays unknown.
      INSERT INTO es_events (position, stream_id, revision, created_at, chain, content_hash, hash, form)
        SELECT c.position, c.stream_id, c.revision, c.time, c.chain, c.content_hash, c.hash, c.form
        FROM es_chain c WHERE NOT EXISTS (SELECT 1 FROM es_events e WHERE e.position = c.position);
      DROP TABLE es_chain;
    END IF;
    IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
        AND table_name = 'es_streams' AND column_name = 'revision') THEN
      DELETE FROM es_streams WHERE truncated_before = 0;
      ALTER TABLE es_streams DROP COLUMN revision;
    END IF;
  END IF;
END $$;
CREATE INDEX IF NOT EXISTS es_events_chain ON es_events (chain, position);
CREATE INDEX IF NOT EXISTS es_events_chain_time ON es_events (chain, created_at);
CREATE INDEX IF NOT EXISTS es_events_unchained ON es_events (position) WHERE hash IS NULL;
DROP FUNCTION IF EXISTS es_append_chained(text[], text[], int[], uuid[], text[], jsonb[], jsonb[], boolean, text[],
  bytea[], bytea[], text[], bytea[]);
-- One round trip for a batch of appends (each with its own stream and expected revision), in one
-- transaction under the append lock: concurrent appends of a process share one commit. Nothing is
-- written when an expected revision does not hold (those are answered, to be retried without
-- them). The caller hashes each event's content; the links are made here, under the lock, from the
-- heads as they are, so appenders in several processes never link from a stale head. A handful of
-- statements whatever the batch holds: the streams' revisions in one read of the index, the events
-- in one insert.
CREATE OR REPLACE FUNCTION es_append(p_streams text[], p_expected text[], p_counts int[], p_ids uuid[],
  p_types text[], p_data jsonb[], p_metadata jsonb[], p_notify boolean, p_chains text[], p_contents bytea[])
RETURNS TABLE (idx int, next_revision bigint, last_position bigint, actual_revision text) LANGUAGE plpgsql
-- Its statements' plans are made once per connection: planned anew for each call's arrays (the
-- default for the first calls, and for as long as a custom plan looks cheaper) they cost more than
-- they run.
SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  names text[];
  lasts bigint[];
  k int;
  actual bigint;
  firsts bigint[] := '{}';
  event_streams text[] := '{}';
  revisions bigint[] := '{}';
  refused boolean := false;
  chains text[];
  heads bytea[];
  links bytea[] := '{}';
  positions bigint[];
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK});
  SELECT array_agg(s.name), array_agg((SELECT max(e.revision) FROM es_events e WHERE e.stream_id = s.name))
    INTO names, lasts FROM (SELECT DISTINCT unnest(p_streams) AS name) s;
  -- A stream the batch appends to twice: the second append is checked against the first's result.
  FOR i IN 1 .. cardinality(p_streams) LOOP
    k := array_position(names, p_streams[i]);
    actual := lasts[k];
    IF p_expected[i] = 'any'
        OR (p_expected[i] = 'no_stream' AND actual IS NULL)
        OR (p_expected[i] = 'stream_exists' AND actual IS NOT NULL)
        OR (p_expected[i] ~ '^[0-9]+$' AND actual IS NOT NULL AND actual = p_expected[i]::bigint) THEN
      firsts := firsts || coalesce(actual + 1, 0);
      FOR r IN 1 .. p_counts[i] LOOP
        event_streams := event_streams || p_streams[i];
        revisions := revisions || (coalesce(actual, -1) + r);
      END LOOP;
      lasts[k] := coalesce(actual, -1) + p_counts[i];
    ELSE
      -- Answered as a row, not raised: PGlite's node-postgres bridge mishandles errors raised mid-query.
      RETURN QUERY SELECT i, NULL::bigint, NULL::bigint, coalesce(actual::text, 'no_stream');
      refused := true;
    END IF;
  END LOOP;
  IF refused THEN RETURN; END IF;
  -- Each link is SHA-256(the chain's link before ‖ the event's content hash), in the batch's order.
  SELECT array_agg(c.chain), array_agg(h.hash) INTO chains, heads
    FROM (SELECT DISTINCT unnest(p_chains) AS chain) c LEFT JOIN es_chain_heads h ON h.chain = c.chain;
  FOR j IN 1 .. cardinality(p_contents) LOOP
    k := array_position(chains, p_chains[j]);
    heads[k] := sha256(coalesce(heads[k], ''::bytea) || p_contents[j]);
    links[j] := heads[k];
  END LOOP;
  -- Positions are taken in the order of the rows inserted, under the lock.
  WITH ins AS (
    INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata, chain, content_hash, hash, form)
    SELECT e.stream, e.revision, e.id, e.type, e.data, e.metadata, e.chain, e.content, e.link, 2
    FROM unnest(event_streams, revisions, p_ids, p_types, p_data, p_metadata, p_chains, p_contents, links)
      WITH ORDINALITY AS e(stream, revision, id, type, data, metadata, chain, content, link, n)
    ORDER BY e.n
    RETURNING es_events.position
  ) SELECT array_agg(ins.position ORDER BY ins.position) INTO positions FROM ins;
  INSERT INTO es_chain_heads (chain, position, hash)
  SELECT DISTINCT ON (c.chain) c.chain, c.position, c.link
  FROM unnest(p_chains, positions, links) WITH ORDINALITY AS c(chain, position, link, n)
  ORDER BY c.chain, c.n DESC
  ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash;
  IF p_notify THEN PERFORM pg_notify('${NOTIFY_CHANNEL}', positions[cardinality(positions)]::text); END IF;
  RETURN QUERY SELECT a.i::int, a.first + a.count - 1, positions[(sum(a.count) OVER (ORDER BY a.i))::int], NULL::text
    FROM unnest(firsts, p_counts) WITH ORDINALITY AS a(first, count, i);
END
$$;
`
