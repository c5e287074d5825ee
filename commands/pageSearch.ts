import { randomUUID } from 'node:crypto'
import { sha256Hex } from '../adapters/text'
import { type PageSearchServed, pageSearch } from '../domain/search'
import { type CommandContext, handle } from './handle'
import type { Mode } from '../queries/ranking'
import { type PageScope, findPages } from '../queries/pageSearch'
import type { SearchDeps } from './search'
import { streams } from './streams'

/** The append of one PageSearchServed event, for the citation log to run. */
const pageSearchRecord =
  (
    deps: SearchDeps,
    ctx: CommandContext,
    workspaceId: string,
    data: Omit<PageSearchServed['data'], 'searchId' | 'workspaceId'>,
    searchId = randomUUID(),
  ) =>
  () => {
    return handle(
      deps.store,
      streams.search(searchId),
      pageSearch,
      { type: 'RecordPageSearch', data: { searchId, workspaceId, ...data } },
      { ...ctx, workspaceId },
      { fresh: true },
    )
  }

/**
 * A search over pages (queries/pageSearch.ts finds the results), recorded as one PageSearchServed
 * event: each result served is one citation of that page version. A public pack's searches are
 * tallied: one event per pack and mode for each period.
 */
export const searchPages = async (
  deps: SearchDeps,
  ctx: CommandContext,
  scope: PageScope,
  req: { query: string; mode: Mode; limit: number; minScore: number },
) => {
  const { results, mode, fallback, position } = await findPages(deps, scope, req)
  const served = results.map((r) => ({ ...r, sha256: sha256Hex(r.content) }))
  const citations = served.map((r) => ({ pageId: r.pageId, version: r.version, sha256: r.sha256 }))
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
    return { results: served, mode, ...(fallback ? { fallback } : {}) }
  }
  // Signed for: one event per search, which is also its answer receipt.
  const searchId = randomUUID()
  deps.citations.record(
    pageSearchRecord(deps, ctx, scope.workspaceId, { mode, citations, query: req.query, position }, searchId),
  )
  return { results: served, mode, ...(fallback ? { fallback } : {}), receipt: { id: searchId, position } }
}
