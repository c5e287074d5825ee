import { PAGE_STATS } from '../../adapters/textIndex/terms'
import { type Scope, scopeSql } from '../../adapters/textIndex/port'
import { type TimeRange, timeScope } from '../../adapters/textIndex/filters'
import { type Engines, type Hit, type Mode, type RankDeps, type SearchIndex, embedQuery, keep, rank } from './ranking'
import { inSnapshot, projectedPosition } from './snapshot'

/** Which page versions a search sees: a workspace's latest versions, or a public pack's verified pins. */
export type PageScope =
  | { kind: 'workspace'; workspaceId: string }
  | { kind: 'pack'; workspaceId: string; collectionId: string; slug: string }

export interface PageResult {
  pageId: string
  title: string
  version: number
  content: string
  score: number
  scores: Hit['scores']
  ranks: Hit['ranks']
  /** `<page title> · v<version>`. */
  citation: string
}

/** Pages are searched whole: a version's row is both what is served and what is embedded. */
const PAGE_INDEX: SearchIndex = {
  stats: PAGE_STATS,
  key: 'page_id',
  rows: { table: 'kb_page_index', field: 'page' },
  vectors: { table: 'kb_page_index' },
}

/** Bounds on when a page was created or last changed. */
export interface PageFilters {
  createdAt?: TimeRange
  updatedAt?: TimeRange
}

const rowsOf = (scope: PageScope, filters: PageFilters = {}): Scope => [
  ...((scope.kind === 'workspace'
    ? [['workspace_id = ?', scope.workspaceId], 'latest']
    : [['collection_id = ?', scope.collectionId], 'pinned']) as Scope),
  ...timeScope(
    scope.workspaceId,
    { created_at: filters.createdAt, updated_at: filters.updatedAt },
    'kb_pages WHERE',
    'page_id',
  ),
]

/**
 * Search over pages like entry search (text, vector, hybrid; minScore then limit), one result per
 * page: a workspace's latest versions, or a public pack's verified pins. Reads only.
 */
export const findPages = async (
  deps: RankDeps,
  scope: PageScope,
  req: { query: string; mode: Mode; limit: number; minScore: number; filters?: PageFilters },
): Promise<{ results: PageResult[]; mode: Mode; fallback?: string; engines: Engines; position: number }> => {
  const vector = await embedQuery(deps, req.mode, req.query)
  return inSnapshot(deps, async (tx) => {
    const position = await projectedPosition(tx, 'page-index')
    const ranked = await rank(
      deps,
      tx,
      {
        index: PAGE_INDEX,
        workspaceId: scope.workspaceId,
        scope: rowsOf(scope, req.filters),
        query: req.query,
        mode: req.mode,
        fusion: 'score',
        limit: req.limit,
        narrowed: Boolean(req.filters?.createdAt || req.filters?.updatedAt),
      },
      vector,
    )
    const kept = keep(ranked.hits, req.minScore, req.limit)
    // The scope holds one row per page (its latest version, or its verified pin).
    const s = scopeSql(rowsOf(scope, req.filters), 2)
    const { rows } = kept.length
      ? await tx.query<{ page_id: string; version: number; title: string; content: string }>(
          `SELECT page_id, version, title, content FROM kb_page_index WHERE page_id = ANY($1::text[])${s.sql}`,
          [kept.map((h) => h.key), ...s.args],
        )
      : { rows: [] }
    const byPage = new Map(rows.map((r) => [r.page_id, r]))
    const served: PageResult[] = kept.flatMap((h) => {
      const r = byPage.get(h.key)
      return r
        ? [
            {
              pageId: r.page_id,
              title: r.title,
              version: r.version,
              content: r.content,
              score: h.score,
              scores: h.scores,
              ranks: h.ranks,
              citation: `${r.title} · v${r.version}`,
            },
          ]
        : []
    })
    return { results: served, mode: ranked.mode, fallback: ranked.fallback, engines: ranked.engines, position }
  })
}
