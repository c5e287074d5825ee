import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { sha256Hex } from '../../adapters/text'
import { type PageSearchServed } from '../../domain/search/search'
import type { DomainError } from '../../domain/shared'
import { type CommandContext } from '../handle'
import type { Mode } from '../../queries/search/ranking'
import { type PageFilters, type PageResult, type PageScope, findPages } from '../../queries/search/pageSearch'
import { type Receipt, type SearchDeps, issueReceipt } from './search'
import { pageSearches } from './aggregates'

/** The append of one PageSearchServed event, for the citation log to run. */
const pageSearchRecord =
  (
    deps: SearchDeps,
    ctx: CommandContext,
    workspaceId: string,
    data: Omit<PageSearchServed['data'], 'searchId' | 'workspaceId'>,
    searchId: string = randomUUID(),
  ) =>
  () => {
    return pageSearches
      .on(deps.store, searchId)
      .handle(
        { type: 'RecordPageSearch', data: { searchId, workspaceId, ...data } },
        { ...ctx, workspaceId },
        { fresh: true },
      )
  }

/**
 * A search over pages (queries/search/pageSearch.ts finds the results), recorded as one PageSearchServed
 * event: each result served is one citation of that page version, and the event is the answer's
 * receipt. A public pack's searches are tallied: one event per pack and mode for each period,
 * holding each distinct answer's receipt once; its id is the answer's hash, so a flood of the same
 * question adds no receipt.
 */
export const searchPages = async (
  deps: SearchDeps,
  ctx: CommandContext,
  scope: PageScope,
  req: { query: string; mode: Mode; limit: number; minScore: number; filters?: PageFilters },
): Promise<
  E.Either<
    DomainError,
    { results: Array<PageResult & { sha256: string }>; mode: Mode; fallback?: string; receipt: Receipt }
  >
> => {
  const { results, mode, fallback, position } = await findPages(deps, scope, req)
  const served = results.map((r) => ({ ...r, sha256: sha256Hex(r.content) }))
  const citations = served.map((r) => ({ pageId: r.pageId, version: r.version, sha256: r.sha256 }))
  const answer = { results: served, mode, ...(fallback ? { fallback } : {}) }
  if (scope.kind === 'pack') {
    // Anonymous: counted with the pack's other serves, one event per period (commands/search/citations.ts).
    const receipt = { query: req.query, position, citations }
    const id = sha256Hex(JSON.stringify([scope.slug, mode, req.query, citations]))
    deps.citations.tally(
      `${scope.slug}:${mode}`,
      citations.map((c) => JSON.stringify([c.pageId, c.version])),
      (counts, receipts: Array<[string, typeof receipt]>) =>
        pageSearchRecord(deps, ctx, scope.workspaceId, {
          mode,
          packSlug: scope.slug,
          citations: [...counts].map(([item, count]) => {
            const [pageId, version] = JSON.parse(item) as [string, number]
            return { pageId, version, count }
          }),
          receipts: receipts.map(([searchId, r]) => ({ searchId, ...r })),
        }),
      { id, value: receipt },
    )
    return E.right({ ...answer, receipt: { id, position } })
  }
  // Signed for: a signed receipt at once, and one event per search appended after the answer.
  const { receipt, searchId } = await issueReceipt(deps.receiptKeys, {
    kind: 'pages',
    workspaceId: scope.workspaceId,
    position,
    results: citations.map((c) => ({ id: c.pageId, version: c.version, chunkIndex: 0, sha256: c.sha256 })),
  })
  void deps.citations.record(
    pageSearchRecord(
      deps,
      ctx,
      scope.workspaceId,
      { mode, citations, query: req.query, position, receipt: receipt.id },
      searchId,
    ),
  )
  return E.right({ ...answer, receipt })
}
