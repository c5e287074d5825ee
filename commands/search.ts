import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Queryable } from '../adapters/db'
import type { EventStore } from '../adapters/eventstore/port'
import { type SearchFilters, chunkScope } from '../adapters/textIndex/port'
import { search as searchDecider } from '../domain/search'
import { type DomainError, fail } from '../domain/shared'
import { readKbConfig } from '../projections/knowledge'
import type { CitationLog } from './citations'
import { type CommandContext, handle } from './handle'
import { type Hit, type Mode, type RankDeps, embedQuery, inSnapshot, keep, rank } from './ranking'
import { streams } from './streams'

export type { Mode }

export interface SearchRequest {
  query: string
  mode: Mode
  limit: number
  minScore: number
  filters: SearchFilters
}

export interface SearchDeps extends RankDeps {
  store: EventStore
  citations: CitationLog
}

export interface SearchResult {
  id: string
  title: string
  content: string
  source: string
  metadata: unknown
  score: number
  chunkIndex: number
  pageUrl?: string
}

/** Each leg reads at least this many chunk candidates, so one result per entry still fills `limit`. */
export const CANDIDATES = 50

/**
 * SPEC.md search over entries: text, vector or hybrid (commands/ranking.ts) over their chunks,
 * one result per entry with its best chunk; minScore, then limit. Every search is recorded as one
 * SearchServed event, which counts one citation for each entry served (commands/citations.ts).
 */
export const searchKnowledge = async (
  deps: SearchDeps,
  ctx: CommandContext,
  workspaceId: string,
  req: SearchRequest,
): Promise<E.Either<DomainError, { results: SearchResult[]; mode: Mode; fallback?: string }>> => {
  const vector = await embedQuery(deps, req.mode, req.query)
  const found = await inSnapshot(deps.db, async (tx) => {
    // The configuration as the read model holds it (a PATCH's answer waited for it).
    const config = await readKbConfig(tx, workspaceId)
    if (!config.enabled) return fail('FORBIDDEN', "this workspace's knowledge base is disabled")
    const { hits, mode, fallback } = await rank(deps, tx, {
      table: 'kb_chunks', key: 'entry_id', scope: chunkScope(workspaceId, req.filters), query: req.query, mode: req.mode,
      candidates: Math.max(CANDIDATES, req.limit * 4),
    }, vector)
    return E.right({ results: await hydrate(tx, workspaceId, keep(hits, req.minScore, req.limit)), mode, ...(fallback ? { fallback } : {}) })
  })
  if (E.isLeft(found)) return found
  const { results, mode } = found.right
  const searchId = randomUUID()
  deps.citations.record(() => handle(
    deps.store,
    streams.search(searchId),
    searchDecider,
    { type: 'RecordSearch', data: { searchId, workspaceId, mode, resultCount: results.length, entryIds: results.map((r) => r.id) } },
    { ...ctx, workspaceId },
    { fresh: true },
  ))
  return found
}
/** Entry fields and chunk text of the kept hits; an entry deleted or disabled meanwhile drops out. */
export const hydrate = async (q: Queryable, workspaceId: string, hits: Hit[]): Promise<SearchResult[]> => {
  if (hits.length === 0) return []
  const { rows } = await q.query(
    `SELECT c.id AS chunk_id, c.chunk_index, c.content, c.page_url, e.id, e.title, e.source, e.metadata
     FROM kb_chunks c JOIN kb_entries e ON e.id = c.entry_id
     WHERE c.id = ANY($1::text[]) AND e.workspace_id = $2 AND e.is_enabled`,
    [hits.map((h) => h.id), workspaceId],
  )
  const byChunk = new Map(rows.map((r) => [r.chunk_id, r]))
  return hits.flatMap((h) => {
    const r = byChunk.get(h.id)
    if (!r) return []
    return [{
      id: r.id, title: r.title, content: r.content, source: r.source, metadata: r.metadata,
      score: h.score, chunkIndex: r.chunk_index, ...(r.page_url ? { pageUrl: r.page_url } : {}),
    }]
  })
}
