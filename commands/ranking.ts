import * as E from 'fp-ts/Either'
import { type Client, type Database, inTransaction } from '../adapters/db'
import type { Embedder } from '../adapters/embedders/port'
import type { Scope, TextIndex } from '../adapters/textIndex/port'
import { hasVectors, vectorSearch } from '../adapters/vectorIndex'

export type Mode = 'hybrid' | 'vector' | 'text'

export interface RankDeps {
  db: Database
  embedder: Embedder
  textIndex: TextIndex
  vectors: boolean
}

/** What to rank: rows of `table` in `scope`, one result per `key` (an entry, a page). */
export interface RankQuery {
  table: string
  key: string
  scope: Scope
  query: string
  mode: Mode
  /** Rows each leg reads (at least 50, so one result per key still fills the limit). */
  candidates: number
}

export interface Hit {
  id: string
  key: string
  score: number
}

const RRF_K = 60

/** Best row per key, in rank order. */
const bestPerKey = (hits: Hit[]) => {
  const seen = new Map<string, Hit>()
  for (const h of [...hits].sort((a, b) => b.score - a.score)) if (!seen.has(h.key)) seen.set(h.key, h)
  return [...seen.values()]
}

/**
 * Reciprocal Rank Fusion (k = 60) over keys ranked by each leg, divided by its maximum 2/61
 * so a key ranked first by both legs scores 1.0. Each key keeps the row that earned its
 * larger share of the sum.
 */
const fuse = (legs: Hit[][]) => {
  const fused = new Map<string, { score: number; best: Hit; share: number }>()
  for (const leg of legs) {
    bestPerKey(leg).forEach((hit, rank) => {
      const share = 1 / (RRF_K + rank + 1)
      const f = fused.get(hit.key)
      if (!f) fused.set(hit.key, { score: share, best: hit, share })
      else {
        f.score += share
        if (share > f.share) Object.assign(f, { best: hit, share })
      }
    })
  }
  const max = legs.length / (RRF_K + 1)
  return [...fused.values()].map((f) => ({ ...f.best, score: f.score / max })).sort((a, b) => b.score - a.score)
}

/** The query's vector for the vector leg, or why there is none (then the search answers from text). */
export type QueryVector = E.Either<string, number[]> | undefined

/**
 * Embeds the query for vector and hybrid search (text needs none), before the search takes a
 * connection: a slow model never holds the database.
 */
export const embedQuery = async (deps: RankDeps, mode: Mode, query: string): Promise<QueryVector> => {
  if (mode === 'text' || !deps.vectors) return undefined
  try {
    return E.right((await deps.embedder.embed([query]))[0])
  } catch (error) {
    return E.left(`the embedding model failed: ${(error as Error).message}`)
  }
}

/**
 * Runs a search's reads in one read-only transaction on one connection: both legs and the rows
 * served come from one snapshot, and on PGlite's single connection a search waits for other
 * work once rather than once per query.
 */
export const inSnapshot = <T>(db: Database, fn: (tx: Client) => Promise<T>) =>
  inTransaction(db.pool, async (tx) => {
    await tx.query('SET TRANSACTION READ ONLY')
    return fn(tx)
  })

/** The vector leg, or why it cannot answer (then the search answers from text). */
const vectorLeg = async (deps: RankDeps, tx: Client, q: RankQuery, vector: QueryVector): Promise<E.Either<string, Hit[]>> => {
  if (!deps.vectors) return E.left('this database has no pgvector')
  const { table, key, scope, candidates } = q
  if (!(await hasVectors(tx, table, deps.embedder.model, scope))) return E.left('there are no embeddings of the current model to search')
  if (!vector) return E.left('the query was not embedded')
  if (E.isLeft(vector)) return vector
  // A row with no similarity to the query (or none defined: a query with no features embeds as
  // zeros) is no match, and must not earn a rank in hybrid's fusion.
  const hits = await vectorSearch(tx, { table, key, vector: vector.right, model: deps.embedder.model, scope, limit: candidates })
  return E.right(hits.filter((h) => h.score > 0))
}

/**
 * SPEC.md's search modes over any indexed table: text (BM25), vector (cosine), or hybrid (RRF of
 * both), one hit per key with its best row. Vector and hybrid fall back to text when there are no
 * vectors to search or the embedder failed; the answer says which mode answered and why. `tx` is
 * the search's snapshot (`inSnapshot`), `vector` the query's (`embedQuery`).
 */
export const rank = async (deps: RankDeps, tx: Client, q: RankQuery, vector: QueryVector): Promise<{ hits: Hit[]; mode: Mode; fallback?: string }> => {
  const text = () => deps.textIndex.search(tx, { table: q.table, key: q.key, query: q.query, scope: q.scope, limit: q.candidates })
  if (q.mode === 'text') return { hits: bestPerKey(await text()), mode: 'text' }
  const semantic = await vectorLeg(deps, tx, q, vector)
  const keyword = q.mode === 'hybrid' || E.isLeft(semantic) ? await text() : []
  if (E.isLeft(semantic)) return { hits: bestPerKey(keyword), mode: 'text', fallback: semantic.left }
  return { hits: q.mode === 'hybrid' ? fuse([semantic.right, keyword]) : bestPerKey(semantic.right), mode: q.mode }
}

/** Scores are served rounded; minScore compares what the client sees; then the limit. */
export const keep = (hits: Hit[], minScore: number, limit: number) =>
  hits.map((h) => ({ ...h, score: Math.round(h.score * 1e6) / 1e6 })).filter((h) => h.score >= minScore).slice(0, limit)
