import { sha256Hex } from '../../adapters/text'
import * as E from 'fp-ts/Either'
import type { Client, Queryable } from '../../adapters/db'
import { bm25 } from '../../adapters/textIndex/bm25'
import { type SearchFilters, chunkScope } from '../../adapters/textIndex/port'
import { CHUNK_STATS, tfOfSql } from '../../adapters/textIndex/terms'
import { type DomainError, fail } from '../../domain/shared'
import { currentAt } from '../../adapters/history'
import type { AsOf } from '../asOf'
import { entryVersion, readKbConfig } from '../knowledge'
import type { RerankSettings } from '../../domain/knowledge'
import { type Highlight, highlight } from './highlight'
import {
  type Evidence,
  type Fusion,
  type Hit,
  type Mode,
  type RankDeps,
  type SearchIndex,
  embedQuery,
  keep,
  rank,
  type Engines,
} from './ranking'
import { inSnapshot, projectedPosition } from './snapshot'

export type { Fusion, Mode }

export interface SearchRequest {
  query: string
  mode?: Mode
  limit?: number
  minScore?: number
  filters: SearchFilters
  /** Search the knowledge base as it stood then (its index's history), not as it stands. */
  asOf?: AsOf
}

/** How one search runs, read once from the workspace's configuration. */
export interface SearchSettings {
  mode: Mode
  limit: number
  minScore: number
  fusion: Fusion
  /** Whether the workspace's knowledge base is switched on. */
  enabled: boolean
  rerank: RerankSettings
}

/**
 * A request's mode, limit and minScore, what it leaves out taken from the workspace's configuration
 * (which starts at hybrid, 5, 0.5), and the workspace's fusion: one read of the configuration. The
 * endpoint, the agents' tools and the console all search with these.
 */
export const searchSettings = async (
  q: Queryable,
  workspaceId: string,
  req: Pick<SearchRequest, 'mode' | 'limit' | 'minScore'>,
): Promise<SearchSettings> => {
  const config = await readKbConfig(q, workspaceId)
  const { search } = config
  return {
    mode: req.mode ?? search.defaultMode,
    limit: req.limit ?? search.defaultLimit,
    minScore: req.minScore ?? search.minScore,
    fusion: search.fusion,
    enabled: config.enabled,
    rerank: search.rerank,
  }
}

export interface SearchResult {
  id: string
  title: string
  content: string
  source: string
  metadata: unknown
  score: number
  /** Each leg's score, the fused one, and the reranking model's where it reordered the results. */
  scores: Hit['scores'] & { rerank?: number }
  ranks: Hit['ranks']
  chunkIndex: number
  /**
   * The entry's version whose content the served chunk is: 1 for the entry's first content (made
   * with it, or filled by its task), one more for each revision of its stream since.
   */
  version: number
  /** The same as the stream's revision, which answer receipts keep to find the served text in the log. */
  revision: number
  /** SHA-256 (hex) of the served chunk's text, as served. */
  sha256: string
  pageUrl?: string
  /** The headings the served chunk stands under ("Installation › Linux"), where its entry has any. */
  headingPath?: string
  highlight?: Highlight
}

/**
 * Knowledge entries: chunks served, entries' titles and text, passages' vectors (projections/search/chunks.ts);
 * or their history, where the rows current at a past moment are those the scope's condition keeps.
 * Scores use the term statistics of now either way.
 */
export const knowledgeIndex = (history = false): SearchIndex => {
  const h = history ? '_history' : ''
  return {
    stats: CHUNK_STATS,
    key: 'entry_id',
    rows: { table: `kb_chunks${h}`, field: 'chunk' },
    entries: { table: `kb_chunk_entries${h}` },
    vectors: { table: `kb_passages${h}`, chunk: 'chunk_index' },
  }
}

export const KNOWLEDGE_INDEX = knowledgeIndex()

/**
 * Search over entries: text, vector or hybrid (queries/search/ranking.ts), one result per entry with the
 * chunk that best answers; minScore, then limit. Reads only: recording the search is the caller's.
 */
export const findKnowledge = async (
  deps: RankDeps,
  workspaceId: string,
  req: Pick<SearchRequest, 'query' | 'filters' | 'asOf'>,
  { mode, limit, minScore, fusion, enabled }: SearchSettings,
): Promise<
  E.Either<DomainError, { results: SearchResult[]; mode: Mode; fallback?: string; engines: Engines; position: number }>
> => {
  const at = req.asOf?.position
  // An index kept outside the database holds the rows of now only.
  if (at !== undefined && deps.textIndex.mirror)
    return fail(
      'VALIDATION_ERROR',
      `asOf: searching a past moment needs the database's text index, not ${deps.textIndex.name}`,
    )
  if (!enabled) return fail('FORBIDDEN', "this workspace's knowledge base is disabled")
  const vector = await embedQuery(deps, mode, req.query)
  return inSnapshot(deps, async (tx) => {
    const position = await projectedPosition(tx, 'chunks')
    const ranked = await rank(
      deps,
      tx,
      {
        index: knowledgeIndex(at !== undefined),
        workspaceId,
        scope: chunkScope(workspaceId, req.filters, at === undefined ? undefined : currentAt(at)),
        at,
        query: req.query,
        mode,
        fusion,
        limit,
        narrowed: Object.values(req.filters).some((v) => v !== undefined),
      },
      vector,
    )
    const kept = keep(ranked.hits, minScore, limit)
    const chunks = await servedChunks(
      tx,
      kept.map((h) => h.key),
      ranked.evidence,
      ranked.mode,
      at,
    )
    return E.right({
      results: await hydrate(tx, workspaceId, req.query, kept, chunks, at),
      mode: ranked.mode,
      ...(ranked.fallback ? { fallback: ranked.fallback } : {}),
      engines: ranked.engines,
      position,
    })
  })
}

/**
 * The chunk each result serves: the one that best answers. With the query's words, the chunk of the
 * entry whose BM25 is highest (over every chunk of the entry); without (vector mode, or an entry
 * found by meaning alone), the chunk of its most similar passage. Answers chunk ids by entry id,
 * with the passage's place in the chunk when it is the one served. `at`: from the index's history,
 * as it stood at that log position.
 */
export const servedChunks = async (
  tx: Client,
  keys: string[],
  evidence: Evidence,
  mode: Mode,
  at?: number,
): Promise<Map<string, Served>> => {
  if (keys.length === 0) return new Map()
  const [h, then] = at === undefined ? ['', ''] : ['_history', ` AND ${currentAt(at)}`]
  const { terms, nearest } = evidence
  const { rows } = await tx.query<{ id: string; key: string; chunk: number; start: number; len: number; tf: number[] }>(
    `SELECT id, entry_id AS key, chunk_index AS chunk, start_offset AS start, len, ${tfOfSql('tf', '$2')} AS tf
     FROM kb_chunks${h} WHERE entry_id = ANY($1::text[])${then} ORDER BY entry_id, chunk_index`,
    [keys, terms?.lexemes ?? []],
  )
  const best = new Map<string, { row: (typeof rows)[number]; value: number }>()
  for (const r of rows) {
    const value = terms && mode !== 'vector' ? bm25(terms, 'chunk', r.tf, r.len) : 0
    const b = best.get(r.key)
    if (!b || value > b.value) best.set(r.key, { row: r, value })
  }
  const { rows: spans } = await tx.query<{ id: string; start: number; end: number }>(
    `SELECT id, start_offset AS start, end_offset AS end FROM kb_passages${h} WHERE id = ANY($1::text[])${then}`,
    [[...nearest.values()].filter((n) => keys.includes(n.key)).map((n) => n.id)],
  )
  return new Map(
    keys.flatMap((key) => {
      const b = best.get(key)
      if (!b) return []
      const near = nearest.get(key)
      const row = b.value > 0 || !near ? b.row : (rows.find((r) => r.key === key && r.chunk === near.chunk) ?? b.row)
      const span = near?.chunk === row.chunk ? spans.find((s) => s.id === near.id) : undefined
      return [
        [key, { id: row.id, ...(span ? { near: { start: span.start - row.start, end: span.end - row.start } } : {}) }],
      ]
    }),
  )
}

/** The chunk a result serves, and where in it the passage most similar to the query lies. */
export interface Served {
  id: string
  near?: { start: number; end: number }
}

/**
 * Entry fields and the served chunk of the kept hits; an entry deleted or disabled meanwhile drops out.
 * `at`: as they stood at that log position.
 */
export const hydrate = async (
  q: Queryable,
  workspaceId: string,
  query: string,
  hits: Hit[],
  chunks: Map<string, Served>,
  at?: number,
): Promise<SearchResult[]> => {
  if (hits.length === 0) return []
  const [h, then] = at === undefined ? ['', ''] : ['_history', ` AND ${currentAt(at, 'c')} AND ${currentAt(at, 'e')}`]
  const { rows } = await q.query(
    `SELECT c.id AS chunk_id, c.chunk_index, c.content, c.start_offset, c.end_offset, c.page_url, c.heading_path,
       c.revision, e.first_content_revision, e.id, e.title, e.source, e.metadata
     FROM kb_chunks${h} c JOIN kb_entries${h} e ON e.id = c.entry_id
     WHERE c.id = ANY($1::text[]) AND e.workspace_id = $2 AND e.is_enabled${then}`,
    [[...chunks.values()].map((c) => c.id), workspaceId],
  )
  const byEntry = new Map(rows.map((r) => [r.id, r]))
  return hits.flatMap((h) => {
    const r = byEntry.get(h.key)
    if (!r) return []
    // The passage's place in the chunk's text, after the table header a chunk among a table's rows starts with.
    const near = chunks.get(h.key)?.near
    const lead = r.content.length - (r.end_offset - r.start_offset)
    const shown = highlight(r.content, query, near && { start: near.start + lead, end: near.end + lead })
    return [
      {
        id: r.id,
        title: r.title,
        content: r.content,
        source: r.source,
        metadata: r.metadata,
        score: h.score,
        scores: h.scores,
        ranks: h.ranks,
        chunkIndex: r.chunk_index,
        version: entryVersion(r.revision, r.first_content_revision),
        revision: Number(r.revision),
        sha256: sha256Hex(r.content),
        ...(r.page_url ? { pageUrl: r.page_url } : {}),
        ...(r.heading_path ? { headingPath: r.heading_path } : {}),
        ...(shown ? { highlight: shown } : {}),
      },
    ]
  })
}
