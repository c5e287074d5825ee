import * as E from 'fp-ts/Either'
import type { Client, Database } from '../../adapters/db'
import type { Embedder } from '../../adapters/embedders/port'
import { MIN_AVG_LEN, bm25, coverage } from '../../adapters/textIndex/bm25'
import { type Scope, type TextIndex, scopeSql } from '../../adapters/textIndex/port'
import { type QueryTerms, queryTerms, tfOfSql } from '../../adapters/textIndex/terms'
import { scopeAt } from '../../adapters/history'
import { type VectorHit, hasVectors, nearestKeys, vectorEngine } from '../../adapters/vectorIndex'
import { type Fused, type Fusion, type Mode, type TextEvidence, type VectorEvidence, fuse } from './rankingModel'

export type { Fusion, Mode }

/** The engines that answered a search's legs (a leg that did not run is absent). */
export interface Engines {
  text?: string
  vectors?: string
  /** The reranking model that reordered the results, or why none did. */
  rerank?: string
}

export interface RankDeps {
  db: Database
  embedder: Embedder
  textIndex: TextIndex
  vectors: boolean
  /**
   * Schemas read before the tables in service: a rebuild's new tables, which its replay compares
   * with those in service (commands/search/replay.ts). Unset, a search reads the tables in service.
   */
  readFrom?: string[]
  /** SEARCH_EXACT_ROWS: rows a narrowed scope may hold for its legs to read them all (default FEW_ROWS). */
  config?: { searchExactRows: number }
}

/**
 * Where a search looks, all tables sharing the scope's columns: `rows` are what a result serves
 * (chunks, or page versions), with BM25 each; `entries` hold each result's title and whole text
 * (absent where a row is the whole thing); `vectors` hold the vectors (passages standing for a
 * chunk, or the rows themselves). `stats` names the term statistics of their fields.
 */
export interface SearchIndex {
  stats: string
  key: string
  rows: { table: string; field: string }
  entries?: { table: string }
  vectors: { table: string; chunk?: string }
}

export interface RankQuery {
  index: SearchIndex
  workspaceId: string
  /** Conditions on the columns all the index's tables share (and their histories). */
  scope: Scope
  /** A past log position: the index's tables are histories, read as they stood then. */
  at?: number
  query: string
  mode: Mode
  fusion: Fusion
  /** Results wanted: each leg reads enough candidates to fill them. */
  limit: number
  /**
   * The scope filters the workspace's rows (metadata, times, a folder, a kind): it may hold few of them, and then
   * each leg reads them all rather than walk its index past the many the filter drops.
   */
  narrowed?: boolean
}

export type Hit = Fused

/**
 * What the search found, kept to choose each result's chunk to serve: the query's lexemes, and each key's most
 * similar row.
 */
export interface Evidence {
  terms?: QueryTerms
  nearest: Map<string, VectorHit>
}

/** Candidates each leg reads: rows for BM25, whole entries by body and by title, vectors. */
const ROW_CANDIDATES = 100
const BODY_CANDIDATES = 50
const TITLE_CANDIDATES = 20
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

const fieldsOf = (index: SearchIndex) => (index.entries ? [index.rows.field, 'title', 'body'] : [index.rows.field])

/** A row's BM25 for the query, normalised, and which of the query's lexemes it holds. */
interface RowScore {
  score: number
  holds: boolean[]
}

/**
 * BM25 of some rows of a table in a field, normalised (adapters/textIndex/bm25.ts); rows in scope
 * only (in a history, an id names a row in each of its versions).
 */
const scoreRows = async (
  tx: Client,
  table: string,
  idColumn: string,
  tfColumn: string,
  lenColumn: string,
  ids: string[],
  terms: QueryTerms,
  field: string,
  scope: Scope,
) => {
  if (ids.length === 0 || terms.lexemes.length === 0) return new Map<string, RowScore>()
  const s = scopeSql(scope, 3)
  const { rows } = await tx.query<{ id: string; len: number; tf: number[] }>(
    `SELECT ${idColumn} AS id, ${lenColumn} AS len,
      ${tfOfSql(tfColumn, '$2')} AS tf FROM ${table} WHERE ${idColumn} = ANY($1::text[])${s.sql}`,
    [ids, terms.lexemes, ...s.args],
  )
  const minAvgLen = field === 'title' ? 0 : MIN_AVG_LEN
  return new Map<string, RowScore>(
    rows.map((r) => [
      r.id,
      { score: bm25(terms, field, r.tf, r.len, minAvgLen), holds: terms.lexemes.map((_, i) => r.tf[i] > 0) },
    ]),
  )
}

const NONE: RowScore = { score: 0, holds: [] }

/**
 * Rows a narrowed scope may hold for a leg to read them all instead of its index, unless configured. Measured at
 * 10,000 passages on PGlite: comparing 945 vectors exactly took 12 ms against 31 ms for the HNSW scan under the same
 * filter (13 ms unfiltered), 80 took 3 ms against 53; counting to the bound costs 1-5 ms.
 */
const FEW_ROWS = 2000

/** Each search's counts so far, by table: where a leg's rows and vectors are one table (pages), it is counted once. */
const counted = new WeakMap<RankQuery, Map<string, Promise<boolean>>>()

/** Whether a narrowed scope holds at most FEW_ROWS (or as configured) rows of a table (counted no further). */
const fewInScope = (deps: RankDeps, tx: Client, q: RankQuery, table: string): Promise<boolean> => {
  const few = deps.config?.searchExactRows ?? FEW_ROWS
  if (!q.narrowed || few === 0) return Promise.resolve(false)
  const tables = counted.get(q) ?? new Map<string, Promise<boolean>>()
  counted.set(q, tables)
  const known = tables.get(table)
  if (known) return known
  const s = scopeSql(scopeAt(q.scope, q.at), 2)
  const counting = tx
    .query<{ n: number }>(`SELECT count(*)::int AS n FROM (SELECT 1 FROM ${table} WHERE true${s.sql} LIMIT $1) x`, [
      few + 1,
      ...s.args,
    ])
    .then(({ rows }) => rows[0].n <= few)
  tables.set(table, counting)
  return counting
}

/**
 * Candidates for the text leg in a column: from the text index in BM25 order, or (`few`: the scope holds few rows)
 * every row in scope holding a lexeme of the query, read without the index.
 */
const textCandidates = async (
  deps: RankDeps,
  tx: Client,
  few: boolean,
  c: Parameters<TextIndex['candidates']>[1] & { tf: string },
  terms: QueryTerms,
) => {
  if (!few) return deps.textIndex.candidates(tx, c)
  if (terms.lexemes.length === 0) return []
  const s = scopeSql(c.scope, 2)
  const { rows } = await tx.query<{ id: string; key: string }>(
    `SELECT ${c.id ?? 'id'} AS id, ${c.key} AS key FROM ${c.table}
     WHERE jsonb_exists_any(${c.tf}, $1::text[])${s.sql}`,
    [terms.lexemes, ...s.args],
  )
  return rows
}

/** The text leg: candidate rows and entries from the index, scored from their term frequencies. */
const textLeg = async (
  deps: RankDeps,
  tx: Client,
  q: RankQuery,
  terms: QueryTerms,
): Promise<Map<string, TextEvidence>> => {
  const { index, query } = q
  const scope = scopeAt(q.scope, q.at)
  const rowLimit = Math.max(ROW_CANDIDATES, q.limit * 4)
  const few = await fewInScope(deps, tx, q, index.rows.table)
  const rows = await textCandidates(
    deps,
    tx,
    few,
    { table: index.rows.table, column: 'searchable_text', tf: 'tf', key: index.key, query, scope, limit: rowLimit },
    terms,
  )
  const rowScores = await scoreRows(
    tx,
    index.rows.table,
    'id',
    'tf',
    'len',
    rows.map((r) => r.id),
    terms,
    index.rows.field,
    scope,
  )
  const evidence = new Map<string, TextEvidence>()
  /** Which lexemes each key's rows hold, to find the row that holds most of the question. */
  const rowHolds = new Map<string, boolean[][]>()
  for (const r of rows) {
    const { score, holds } = rowScores.get(r.id) ?? NONE
    rowHolds.set(r.key, [...(rowHolds.get(r.key) ?? []), holds])
    // Where a row is the whole thing (a page), it is also the body.
    const e = evidence.get(r.key)
    if (!e) evidence.set(r.key, { chunk: score, body: index.entries ? 0 : score, title: 0, coverage: 0 })
    else if (score > e.chunk) Object.assign(e, { chunk: score, ...(index.entries ? {} : { body: score }) })
  }
  let titleHolds = new Map<string, boolean[]>()
  if (index.entries) {
    const entries = index.entries.table
    const [bodies, titles] = await Promise.all([
      textCandidates(
        deps,
        tx,
        few,
        {
          table: entries,
          column: 'body_text',
          tf: 'body_tf',
          id: index.key,
          key: index.key,
          query,
          scope,
          limit: BODY_CANDIDATES,
        },
        terms,
      ),
      textCandidates(
        deps,
        tx,
        few,
        {
          table: entries,
          column: 'title_text',
          tf: 'title_tf',
          id: index.key,
          key: index.key,
          query,
          scope,
          limit: TITLE_CANDIDATES,
        },
        terms,
      ),
    ])
    const keys = [...new Set([...evidence.keys(), ...bodies.map((b) => b.key), ...titles.map((t) => t.key)])]
    const [body, title] = await Promise.all([
      scoreRows(tx, entries, index.key, 'body_tf', 'body_len', keys, terms, 'body', scope),
      scoreRows(tx, entries, index.key, 'title_tf', 'title_len', keys, terms, 'title', scope),
    ])
    titleHolds = new Map([...title].map(([key, t]) => [key, t.holds]))
    for (const key of keys) {
      const e = evidence.get(key) ?? { chunk: 0, body: 0, title: 0, coverage: 0 }
      evidence.set(key, { ...e, body: body.get(key)?.score ?? 0, title: title.get(key)?.score ?? 0 })
    }
  }
  // Coverage: the most of the question one row holds, with the title's words (a passage is read
  // under its title).
  for (const [key, e] of evidence) {
    const inTitle = titleHolds.get(key) ?? []
    const held = (rowHolds.get(key) ?? [[]]).map((holds) =>
      coverage(
        terms,
        index.rows.field,
        terms.lexemes.map((_, i) => Boolean(holds[i] || inTitle[i])),
      ),
    )
    e.coverage = Math.max(...held)
  }
  // A key no lexeme of the query reached is no match.
  for (const [key, e] of evidence) if (e.chunk === 0 && e.body === 0 && e.title === 0) evidence.delete(key)
  return evidence
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
