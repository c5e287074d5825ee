import { randomUUID } from 'node:crypto'
import { type Scope, scopeSql } from '../adapters/textIndex/port'
import { type PageSearchServed, pageSearch } from '../domain/search'
import { PAGE_STATS } from '../projections/pageIndex'
import { type CommandContext, handle } from './handle'
import { type Hit, type Mode, type SearchIndex, embedQuery, inSnapshot, keep, rank } from './ranking'
import type { SearchDeps } from './search'
import { streams } from './streams'

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

/** The append of one PageSearchServed event, for the citation log to run. */
const pageSearchRecord =
  (
    deps: SearchDeps,
    ctx: CommandContext,
    workspaceId: string,
    data: Omit<PageSearchServed['data'], 'searchId' | 'workspaceId'>,
  ) =>
  () => {
    const searchId = randomUUID()
    return handle(
      deps.store,
      streams.search(searchId),
      pageSearch,
      { type: 'RecordPageSearch', data: { searchId, workspaceId, ...data } },
      { ...ctx, workspaceId },
      { fresh: true },
    )
  }

const rowsOf = (scope: PageScope): Scope =>
  scope.kind === 'workspace'
    ? [['workspace_id = ?', scope.workspaceId], 'latest']
    : [['collection_id = ?', scope.collectionId], 'pinned']

/**
 * Search over pages like entry search (text, vector, hybrid; minScore then limit), one result per
 * page. The search is one PageSearchServed event: each result served is one citation of that page
 * version. A public pack's searches are tallied: one event per pack and mode for each period.
 */
export const searchPages = async (
  deps: SearchDeps,
  ctx: CommandContext,
  scope: PageScope,
  req: { query: string; mode: Mode; limit: number; minScore: number },
) => {
  const vector = await embedQuery(deps, req.mode, req.query)
  const { results, mode, fallback } = await inSnapshot(deps.db, async (tx) => {
    const ranked = await rank(
      deps,
      tx,
      {
        index: PAGE_INDEX,
        workspaceId: scope.workspaceId,
        scope: rowsOf(scope),
        query: req.query,
        mode: req.mode,
        fusion: 'score',
        limit: req.limit,
      },
      vector,
    )
    const kept = keep(ranked.hits, req.minScore, req.limit)
    // The scope holds one row per page (its latest version, or its verified pin).
    const s = scopeSql(rowsOf(scope), 2)
    const { rows } = kept.length
      ? await tx.query(
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
    return { results: served, mode: ranked.mode, fallback: ranked.fallback }
  })
  const citations = results.map((r) => ({ pageId: r.pageId, version: r.version }))
  if (scope.kind === 'pack') {
    // Anonymous: counted with the pack's other serves, one event per period (commands/citations.ts).
    deps.citations.tally(
      `${scope.slug}:${mode}`,
      citations.map((c) => JSON.stringify([c.pageId, c.version])),
      (counts) =>
        pageSearchRecord(deps, ctx, scope.workspaceId, {
          mode,
          packSlug: scope.slug,
          citations: [...counts].map(([item, count]) => {
            const [pageId, version] = JSON.parse(item) as [string, number]
            return { pageId, version, count }
          }),
        }),
    )
  } else deps.citations.record(pageSearchRecord(deps, ctx, scope.workspaceId, { mode, citations }))
  return { results, mode, ...(fallback ? { fallback } : {}) }
}
