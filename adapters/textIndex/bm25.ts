import type { QueryTerms } from './terms'

/** Okapi BM25's parameters, as Lucene and pg_textsearch default them. */
export const K1 = 1.2
export const B = 0.75

/** Lucene's inverse document frequency: positive even for a lexeme every document holds. */
export const idf = (docs: number, df: number) => Math.log(1 + (docs - df + 0.5) / (df + 0.5))

/**
 * The least average length (in lexemes) a passage's or a document's length is judged against: in a
 * workspace of one-line notes a one-line note is short, as it is beside manuals, so its score does not
 * jump when the first long document arrives. Workspaces of documents average far more than this.
 */
export const MIN_AVG_LEN = 100

/**
 * A row's BM25 for the query in `field`, divided by the most any row could score (each lexeme's
 * weight times k1 + 1): 0 when it holds none of the query's lexemes, towards 1 when it holds all
 * of them many times. Dividing by the query's maximum makes scores of different queries comparable.
 * Titles, short everywhere, pass a `minAvgLen` of 0.
 */
export const bm25 = (terms: QueryTerms, field: string, tf: number[], len: number, minAvgLen = MIN_AVG_LEN) => {
  const stats = terms.fields[field]
  if (!stats) return 0
  const avgLen = Math.max(stats.avgLen || len || 1, minAvgLen)
  let score = 0
  let max = 0
  terms.lexemes.forEach((_, i) => {
    const weight = terms.counts[i] * idf(stats.docs, stats.df[i])
    max += weight * (K1 + 1)
    const f = tf[i] ?? 0
    if (f > 0) score += (weight * f * (K1 + 1)) / (f + K1 * (1 - B + (B * len) / avgLen))
  })
  return max > 0 ? score / max : 0
}

/**
 * The share of the query's lexemes that `holds` marks as present, each weighted as BM25 weighs it in
 * `field` (a rare word counts more than a common one): 1 when every word of the question is there. A
 * word no row of the field holds (a typo, a word of another topic) counts for nothing: a note that
 * holds "island" and "Perth" holds all of "island near Perth" that the workspace knows.
 */
export const coverage = (terms: QueryTerms, field: string, holds: boolean[]): number => {
  const stats = terms.fields[field]
  if (!stats) return 0
  let held = 0
  let all = 0
  terms.lexemes.forEach((_, i) => {
    if (!stats.df[i]) return
    const weight = terms.counts[i] * idf(stats.docs, stats.df[i])
    all += weight
    if (holds[i]) held += weight
  })
  return all > 0 ? held / all : 0
}
