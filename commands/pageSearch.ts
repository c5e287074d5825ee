import { randomUUID } from 'node:crypto'
import type { Scope } from '../adapters/textIndex/port'
import { pageSearch } from '../domain/search'
import { type CommandContext, handle } from './handle'
import { type Mode, embedQuery, inSnapshot, keep, rank } from './ranking'
import type { SearchDeps } from './search'
import { CANDIDATES } from './search'
import { streams } from './streams'

/** Which page versions a search sees: a workspace's latest versions, or a public pack's verified pins. */
export type PageScope = { kind: 'workspace'; workspaceId: string } | { kind: 'pack'; workspaceId: string; collectionId: string; slug: string }

export interface PageResult {
  pageId: string
  title: string
  version: number
  content: string
  score: number
  /** SPEC.md: `<page title> · v<version>`. */
  citation: string
}

const rowsOf = (scope: PageScope): Scope =>
  scope.kind === 'workspace' ? [['workspace_id = ?', scope.workspaceId], 'latest'] : [['collection_id = ?', scope.collectionId], 'pinned']

/**
 * Search over pages like entry search (text, vector, hybrid; minScore then limit), one result per
 * page. The search is one PageSearchServed event: each result served is one citation of that page
 * version.
 */
export const searchPages = async (deps: SearchDeps, ctx: CommandContext, scope: PageScope, req: { query: string; mode: Mode; limit: number; minScore: number }) => {
  const vector = await embedQuery(deps, req.mode, req.query)
  const { results, mode, fallback } = await inSnapshot(deps.db, async (tx) => {
    const ranked = await rank(deps, tx, {
      table: 'kb_page_index', key: 'page_id', scope: rowsOf(scope), query: req.query, mode: req.mode, candidates: Math.max(CANDIDATES, req.limit * 4),
    }, vector)
    const kept = keep(ranked.hits, req.minScore, req.limit)
    const { rows } = kept.length
      ? await tx.query('SELECT id, page_id, version, title, content FROM kb_page_index WHERE id = ANY($1::text[])', [kept.map((h) => h.id)])
      : { rows: [] }
    const byId = new Map(rows.map((r) => [r.id, r]))
    const served: PageResult[] = kept.flatMap((h) => {
      const r = byId.get(h.id)
      return r ? [{ pageId: r.page_id, title: r.title, version: r.version, content: r.content, score: h.score, citation: `${r.title} · v${r.version}` }] : []
    })
    return { results: served, mode: ranked.mode, fallback: ranked.fallback }
  })
  const searchId = randomUUID()
  deps.citations.record(() => handle(deps.store, streams.search(searchId), pageSearch, {
    type: 'RecordPageSearch',
    data: {
      searchId, workspaceId: scope.workspaceId, mode, citations: results.map((r) => ({ pageId: r.pageId, version: r.version })),
      ...(scope.kind === 'pack' ? { packSlug: scope.slug } : {}),
    },
  }, { ...ctx, workspaceId: scope.workspaceId }, { fresh: true }))
  return { results, mode, ...(fallback ? { fallback } : {}) }
}
