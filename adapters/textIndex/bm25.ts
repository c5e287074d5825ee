import type { QueryTerms } from './terms'

/** Okapi BM25's parameters, as Lucene and pg_textsearch default them. */
export const K1 = 1.2
export const B = 0.75

/** Lucene's inverse document frequency: positive even for a lexeme every document holds. */
export const idf = (docs: number, df: number) => Math.log(1 + (docs - df + 0.5) / (df + 0.5))

/**
 * A row's BM25 for the query in `field`, divided by the most any row could score (each lexeme's
 * weight times k1 + 1): 0 when it holds none of the query's lexemes, towards 1 when it holds all
 * of them many times. Dividing by the query's maximum makes scores of different queries comparable.
 */
export const bm25 = (terms: QueryTerms, field: string, tf: number[], len: number): number => {
  const stats = terms.fields[field]
  if (!stats) return 0
  const avgLen = stats.avgLen || len || 1
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
