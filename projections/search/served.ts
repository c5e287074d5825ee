import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { EntryDeleted } from '../../domain/knowledge'
import { PageDeleted } from '../../domain/pages'
import { assertNever } from '../../domain/shared'
import { PageSearchServed, SearchServed } from '../../domain/search'
import { type Projector, decodeEvent, noPause } from '../projector'

const Event = t.union([SearchServed, PageSearchServed, EntryDeleted, PageDeleted])

/**
 * What searches served: a row per search over entries (kb_served_searches), a row per page version a
 * search over pages cited (kb_served_page_citations), and how often each entry and page was served
 * (kb_citation_counts, which the entries' and pages' reads show as their cited count). Counted once
 * per search: rows keyed by the search make a replay change nothing. A deleted entry or page loses
 * its count, and a page its citations; the searches over entries that served it stay.
 */
export const servedProjector: Projector = {
  name: 'served',
  version: 1,
  tables: ['kb_served_searches', 'kb_served_page_citations', 'kb_citation_counts'],
  schema: `
    CREATE TABLE kb_served_searches (position bigint PRIMARY KEY, workspace_id text NOT NULL, at timestamptz NOT NULL,
      entry_ids text[] NOT NULL);
    CREATE INDEX kb_served_searches_workspace ON kb_served_searches (workspace_id, at);
    CREATE TABLE kb_served_page_citations (
      search_id text NOT NULL, page_id text NOT NULL, version integer NOT NULL, at timestamptz NOT NULL, pack_slug text,
      served integer NOT NULL DEFAULT 1, PRIMARY KEY (search_id, page_id, version));
    CREATE INDEX kb_served_page_citations_page ON kb_served_page_citations (page_id, at);
    CREATE TABLE kb_citation_counts (kind text NOT NULL, id text NOT NULL, cited integer NOT NULL,
      PRIMARY KEY (kind, id));
  `,
  handles: ['SearchServed', 'PageSearchServed', 'EntryDeleted', 'PageDeleted'],
  /** Searches come in runs (their citations are appended together): each run is one statement. */
  async applyEvents(tx: Client, events: RecordedEvent[]) {
    for (let i = 0; i < events.length; ) {
      let end = i
      while (end < events.length && events[end].type === 'SearchServed') end++
      if (end > i) {
        await countSearches(tx, events.slice(i, end))
        i = end
      } else await this.apply(tx, events[i++], noPause)
    }
  },
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    switch (e.type) {
      case 'SearchServed':
        return countSearches(tx, [recorded])
      case 'PageSearchServed':
        return countPageSearch(tx, e, recorded.metadata.at)
      case 'EntryDeleted':
        return uncount(tx, 'entry', e.data.entryId)
      case 'PageDeleted':
        await tx.query('DELETE FROM kb_served_page_citations WHERE page_id = $1', [e.data.pageId])
        return uncount(tx, 'page', e.data.pageId)
      default:
        return assertNever(e)
    }
  },
}

/** Adds the cited rows (a CTE's name, with `id` and `n`) to the counts of their kind. */
const addCounts = (kind: 'entry' | 'page', cited: string) =>
  `INSERT INTO kb_citation_counts (kind, id, cited) SELECT '${kind}', id, n FROM ${cited}
   ON CONFLICT (kind, id) DO UPDATE SET cited = kb_citation_counts.cited + EXCLUDED.cited`

/** Searches over entries: a row each, and one citation for each entry a search served. */
const countSearches = async (tx: Client, searches: RecordedEvent[]) => {
  const data = searches.map((r) => decodeEvent(SearchServed, r).data)
  await tx.query(
    `WITH served AS (
       INSERT INTO kb_served_searches (position, workspace_id, at, entry_ids)
       SELECT p, w, a, ARRAY(SELECT jsonb_array_elements_text(ids)) FROM unnest($1::bigint[], $2::text[],
         $3::timestamptz[], $4::jsonb[]) AS u(p, w, a, ids)
       ON CONFLICT (position) DO NOTHING RETURNING entry_ids),
     cited AS (SELECT id, count(*)::int AS n FROM served, unnest(entry_ids) AS id GROUP BY id)
     ${addCounts('entry', 'cited')}`,
    [
      searches.map((r) => r.position),
      data.map((d) => d.workspaceId),
      searches.map((r) => r.metadata.at),
      // A search of a past moment is counted, but cites nothing of now.
      data.map((d) => JSON.stringify(d.asOf === undefined ? d.entryIds : [])),
    ],
  )
}

/** A search over pages: its citations, each counted once (replaying the batch inserts and counts nothing). */
const countPageSearch = async (tx: Client, e: PageSearchServed, at: string) => {
  const c = e.data.citations
  await tx.query(
    `WITH added AS (
       INSERT INTO kb_served_page_citations (search_id, page_id, version, at, pack_slug, served)
       SELECT $1, p, v, $4, $5, n FROM unnest($2::text[], $3::int[], $6::int[]) AS u(p, v, n)
       ON CONFLICT DO NOTHING RETURNING page_id, served),
     cited AS (SELECT page_id AS id, sum(served)::int AS n FROM added GROUP BY page_id)
     ${addCounts('page', 'cited')}`,
    [
      e.data.searchId,
      c.map((x) => x.pageId),
      c.map((x) => x.version),
      at,
      e.data.packSlug ?? null,
      c.map((x) => x.count ?? 1),
    ],
  )
}

const uncount = async (tx: Client, kind: 'entry' | 'page', id: string) => {
  await tx.query('DELETE FROM kb_citation_counts WHERE kind = $1 AND id = $2', [kind, id])
}
