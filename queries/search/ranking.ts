import * as E from 'fp-ts/Either'
import type { Client } from '../../adapters/db'
import { type QueryTerms, queryTerms } from '../../adapters/textIndex/terms'
import { type VectorHit, hasVectors, nearestKeys, vectorEngine } from '../../adapters/vectorIndex'
import { type Engines, type RankDeps, type RankQuery, fewInScope } from './rankQuery'
import { type Fused, type Fusion, type Mode, type TextEvidence, type VectorEvidence, fuse } from './rankingModel'
import { fieldsOf, textLeg } from './textLeg'

export type { Engines, Fusion, Mode, RankDeps, RankQuery }
export type { SearchIndex } from './rankQuery'

export type Hit = Fused

/**
 * What the search found, kept to choose each result's chunk to serve: the query's lexemes, and each key's most
 * similar row.
 */
export interface Evidence {
  terms?: QueryTerms
  nearest: Map<string, VectorHit>
}

/** Nearest rows the vector leg reads (or 8 × limit). */
const VECTOR_CANDIDATES = 200
/**
 * The vector leg ranks keys, not rows: it gathers the nearest rows of at least this many distinct
 * keys (or 4 × limit), at most three of each (its evidence reads a key's best three), so that one long
 * document's many passages cannot take every candidate.
 */
const VECTOR_KEYS = 40
const VECTOR_ROWS_PER_KEY = 3

/** The query's vector for the vector leg, or why there is none (then the search answers from text). */
export type QueryVector = E.Either<string, number[]> | undefined

/**
 * Embeds the query for vector and hybrid search (text needs none), before the search takes a
 * connection: a slow model never holds the database.
 */
export const embedQuery = async (deps: RankDeps, mode: Mode, query: string): Promise<QueryVector> => {
  if (mode === 'text') return undefined
  try {
    return E.right((await deps.embedder.embed([query]))[0])
  } catch (error) {
    return E.left(`the embedding model failed: ${(error as Error).message}`)
  }
}

/** Vector evidence of each key from its rows' similarities: the best, and the mean of the best three. */
const vectorEvidence = (hits: VectorHit[]) => {
  const byKey = new Map<string, number[]>()
  for (const h of hits) byKey.set(h.key, [...(byKey.get(h.key) ?? []), h.score])
  return new Map(
    [...byKey].map(([key, scores]) => {
      const top = scores.sort((a, b) => b - a).slice(0, 3)
      return [key, { best: top[0], top3: top.reduce((s, x) => s + x, 0) / top.length }] as const
    }),
  )
}

/** The vector leg, or why it cannot answer (then the search answers from text). */
const vectorLeg = async (
  deps: RankDeps,
  tx: Client,
  q: RankQuery,
  vector: QueryVector,
): Promise<E.Either<string, VectorHit[]>> => {
  const { table } = q.index.vectors
  if (!(await hasVectors(tx, table, deps.embedder.model, q.scope, q.at)))
    return E.left('there are no embeddings of the current model to search')
  if (!vector) return E.left('the query was not embedded')
  if (E.isLeft(vector)) return vector
  // Without pgvector (or in a history) every row in scope is compared, exactly.
  const hits = await nearestKeys(
    tx,
    deps.vectors,
    {
      table,
      key: q.index.key,
      chunk: q.index.vectors.chunk,
      vector: vector.right,
      model: deps.embedder.model,
      dimensions: deps.embedder.dimensions,
      at: q.at,
      scope: q.scope,
      limit: Math.max(VECTOR_CANDIDATES, q.limit * 8),
      exact: await fewInScope(deps, tx, q, table),
    },
    { keys: Math.max(VECTOR_KEYS, q.limit * 4), perKey: VECTOR_ROWS_PER_KEY },
  )
  // A row with no similarity to the query (or none defined: a query with no features embeds as
  // zeros) is no match.
  return E.right(hits.filter((h) => h.score > 0))
}

/**
 * Search over an index in one of the modes (text, vector, hybrid), one hit per key, best first: the legs gather
 * their evidence and the ranking model (./rankingModel.ts) orders and scores it. Vector and hybrid
 * fall back to text when there are no vectors to search or the embedder failed; the answer says
 * which mode answered and why. `tx` is the search's snapshot (`inSnapshot`), `vector` the query's
 * (`embedQuery`).
 */
export const rank = async (
  deps: RankDeps,
  tx: Client,
  q: RankQuery,
  vector: QueryVector,
): Promise<{ hits: Hit[]; mode: Mode; fallback?: string; engines: Engines; evidence: Evidence }> => {
  const evidence: Evidence = { nearest: new Map() }
  const semantic = q.mode === 'text' ? undefined : await vectorLeg(deps, tx, q, vector)
  const mode: Mode = semantic && E.isLeft(semantic) ? 'text' : q.mode
  const fallback = semantic && E.isLeft(semantic) ? semantic.left : undefined

  let text = new Map<string, TextEvidence>()
  if (mode !== 'vector') {
    evidence.terms = await queryTerms(tx, q.index.stats, q.workspaceId, q.query, fieldsOf(q.index))
    text = await textLeg(deps, tx, q, evidence.terms)
  }
  let vec = new Map<string, VectorEvidence>()
  if (semantic && E.isRight(semantic)) {
    // Hits come most similar first: a key's first is its nearest row.
    for (const h of semantic.right) if (!evidence.nearest.has(h.key)) evidence.nearest.set(h.key, h)
    vec = vectorEvidence(semantic.right)
  }

  const hits = fuse(text, vec, mode, q.fusion)
  const engines: Engines = {
    ...(mode !== 'vector' ? { text: deps.textIndex.name } : {}),
    ...(semantic && E.isRight(semantic) ? { vectors: vectorEngine(deps.vectors) } : {}),
  }
  return { hits, mode, ...(fallback ? { fallback } : {}), engines, evidence }
}

/** Scores are served rounded; minScore compares what the client sees; then the limit. */
export const keep = (hits: Hit[], minScore: number, limit: number) =>
  hits
    .map((h) => ({
      ...h,
      score: round(h.score),
      scores: Object.fromEntries(Object.entries(h.scores).map(([k, v]) => [k, round(v)])) as Hit['scores'],
    }))
    .filter((h) => h.score >= minScore)
    .slice(0, limit)

export const round = (x: number) => Math.round(x * 1e6) / 1e6
