import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Database } from '../adapters/db'
import type { Embedder } from '../adapters/embedders/port'
import type { EventStore } from '../adapters/eventstore/port'
import type { SearchFilters, TextIndex } from '../adapters/textIndex/port'
import { hasVectors, vectorSearch } from '../adapters/vectorIndex'
import { search as searchDecider } from '../domain/search'
import { type DomainError, fail } from '../domain/shared'
import { readKbConfig } from '../projections/knowledge'
import { type CommandContext, handle } from './handle'
import { streams } from './streams'

export type Mode = 'hybrid' | 'vector' | 'text'

export interface SearchRequest {
  query: string
  mode: Mode
  limit: number
  minScore: number
  filters: SearchFilters
}

export interface SearchDeps {
  store: EventStore
  db: Database
  embedder: Embedder
  textIndex: TextIndex
  vectors: boolean
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
const CANDIDATES = 50
const RRF_K = 60

interface Hit {
  chunkId: string
  entryId: string
  score: number
}

/** Best chunk per entry, in rank order. */
const bestPerEntry = (hits: Hit[]) => {
  const seen = new Map<string, Hit>()
  for (const h of [...hits].sort((a, b) => b.score - a.score)) if (!seen.has(h.entryId)) seen.set(h.entryId, h)
  return [...seen.values()]
}

/**
 * Reciprocal Rank Fusion (k = 60) over entries ranked by each leg, divided by its maximum 2/61
 * so an entry ranked first by both legs scores 1.0. Each entry keeps the chunk that earned its
 * larger share of the sum.
 */
const fuse = (legs: Hit[][]) => {
  const fused = new Map<string, { score: number; best: Hit; share: number }>()
  for (const leg of legs) {
    bestPerEntry(leg).forEach((hit, rank) => {
      const share = 1 / (RRF_K + rank + 1)
      const f = fused.get(hit.entryId)
      if (!f) fused.set(hit.entryId, { score: share, best: hit, share })
      else {
        f.score += share
        if (share > f.share) Object.assign(f, { best: hit, share })
      }
    })
  }
  const max = legs.length / (RRF_K + 1)
  return [...fused.values()].map((f) => ({ ...f.best, score: f.score / max })).sort((a, b) => b.score - a.score)
}

/** The vector leg, or why it cannot answer (then the search answers from text). */
const vectorLeg = async (deps: SearchDeps, workspaceId: string, req: SearchRequest, limit: number): Promise<E.Either<string, Hit[]>> => {
  if (!deps.vectors) return E.left('this database has no pgvector')
  if (!(await hasVectors(deps.db, workspaceId, deps.embedder.model))) return E.left('the workspace has no embeddings of the current model')
  let vector: number[]
  try {
    ;[vector] = await deps.embedder.embed([req.query])
  } catch (error) {
    return E.left(`the embedding model failed: ${(error as Error).message}`)
  }
  return E.right(await vectorSearch(deps.db, { workspaceId, vector, model: deps.embedder.model, filters: req.filters, limit }))
}

/**
 * SPEC.md search: text (BM25), vector (cosine), or hybrid (RRF of both); one result per entry
 * with its best chunk; minScore, then limit. Every search is recorded as one SearchServed event,
 * which counts one citation for each entry served.
 */
export const searchKnowledge = async (
  deps: SearchDeps,
  ctx: CommandContext,
  workspaceId: string,
  req: SearchRequest,
): Promise<E.Either<DomainError, { results: SearchResult[]; mode: Mode; fallback?: string }>> => {
  // A read: the configuration as the read model holds it (a PATCH's answer waited for it).
  const config = await readKbConfig(deps.db.pool, workspaceId)
  if (!config.enabled) return fail('FORBIDDEN', "this workspace's knowledge base is disabled")
  const candidates = Math.max(CANDIDATES, req.limit * 4)
  const text = () => deps.textIndex.search(deps.db.pool, { workspaceId, query: req.query, filters: req.filters, limit: candidates })
  let mode = req.mode
  let fallback: string | undefined
  let ranked: Hit[]
  if (mode === 'text') ranked = bestPerEntry(await text())
  else {
    const [vector, keyword] = await Promise.all([vectorLeg(deps, workspaceId, req, candidates), mode === 'hybrid' ? text() : Promise.resolve([])])
    if (E.isLeft(vector)) {
      fallback = vector.left
      mode = 'text'
      ranked = bestPerEntry(req.mode === 'hybrid' ? keyword : await text())
    } else ranked = mode === 'hybrid' ? fuse([vector.right, keyword]) : bestPerEntry(vector.right)
  }
  // Scores are served rounded; minScore compares what the client sees.
  const kept = ranked.map((h) => ({ ...h, score: Math.round(h.score * 1e6) / 1e6 })).filter((h) => h.score >= req.minScore).slice(0, req.limit)
  const results = await hydrate(deps.db, workspaceId, kept)
  const searchId = randomUUID()
  await handle(
    deps.store,
    streams.search(searchId),
    searchDecider,
    { type: 'RecordSearch', data: { searchId, workspaceId, mode, resultCount: results.length, entryIds: results.map((r) => r.id) } },
    { ...ctx, workspaceId },
  )
  return E.right({ results, mode, ...(fallback ? { fallback } : {}) })
}

/** Entry fields and chunk text of the kept hits; an entry deleted or disabled meanwhile drops out. */
const hydrate = async (db: Database, workspaceId: string, hits: Hit[]): Promise<SearchResult[]> => {
  if (hits.length === 0) return []
  const { rows } = await db.pool.query(
    `SELECT c.id AS chunk_id, c.chunk_index, c.content, c.page_url, e.id, e.title, e.source, e.metadata
     FROM kb_chunks c JOIN kb_entries e ON e.id = c.entry_id
     WHERE c.id = ANY($1::text[]) AND e.workspace_id = $2 AND e.is_enabled`,
    [hits.map((h) => h.chunkId), workspaceId],
  )
  const byChunk = new Map(rows.map((r) => [r.chunk_id, r]))
  return hits.flatMap((h) => {
    const r = byChunk.get(h.chunkId)
    if (!r) return []
    return [{
      id: r.id, title: r.title, content: r.content, source: r.source, metadata: r.metadata,
      score: h.score, chunkIndex: r.chunk_index, ...(r.page_url ? { pageUrl: r.page_url } : {}),
    }]
  })
}
