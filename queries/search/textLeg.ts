import { MIN_AVG_LEN, bm25, coverage } from '../../adapters/textIndex/bm25'
import type { Client } from '../../adapters/db'
import { scopeAt } from '../../adapters/history'
import { type Scope, type TextIndex, scopeSql } from '../../adapters/textIndex/port'
import { type QueryTerms, tfOfSql } from '../../adapters/textIndex/terms'
import { type RankDeps, type RankQuery, type SearchIndex, fewInScope } from './rankQuery'
import type { TextEvidence } from './rankingModel'

/** Candidates the text leg reads: rows for BM25, whole entries by body and by title. */
const ROW_CANDIDATES = 100
const BODY_CANDIDATES = 50
const TITLE_CANDIDATES = 20

/** The fields whose term statistics a search of the index reads. */
export const fieldsOf = (index: SearchIndex) =>
  index.entries ? [index.rows.field, 'title', 'body'] : [index.rows.field]

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
export const textLeg = async (
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
