// How far two rankings of the same query agree, and how good one is where judgments exist.

/** The depth every comparison looks at: the top 10. */
export const DEPTH = 10

/** Persistence of rank-biased overlap: the first 10 ranks carry about 86% of the weight. */
const RBO_P = 0.9

/** The share of the longer top 10 that the other top 10 holds too (1 when both are empty). */
export const overlapAt = (a: string[], b: string[], k = DEPTH) => {
  const [x, y] = [a.slice(0, k), b.slice(0, k)]
  const longest = Math.max(x.length, y.length)
  if (longest === 0) return 1
  const inY = new Set(y)
  return x.filter((id) => inY.has(id)).length / longest
}

/**
 * Rank-biased overlap (Webber, Moffat and Zobel, 2010), extrapolated from the top `k`: agreement
 * at every depth, weighted towards the first ranks; 1 for the same list, 0 for two lists that share
 * nothing. A shorter list counts as one whose missing ranks match nothing.
 */
export const rankBiasedOverlap = (a: string[], b: string[], k = DEPTH, p = RBO_P) => {
  const depth = Math.min(k, Math.max(a.length, b.length))
  if (depth === 0) return 1
  const seenA = new Set<string>()
  const seenB = new Set<string>()
  let shared = 0
  let sum = 0
  for (let d = 1; d <= depth; d++) {
    const [x, y] = [a[d - 1], b[d - 1]]
    if (x !== undefined) {
      seenA.add(x)
      if (seenB.has(x)) shared++
    }
    if (y !== undefined) {
      seenB.add(y)
      if (seenA.has(y)) shared++
    }
    sum += (shared / d) * p ** d
  }
  return (shared / depth) * p ** depth + ((1 - p) / p) * sum
}

/** Graded gain: 2 (answers the question) counts three times 1 (related). */
const gain = (grade: number) => 2 ** grade - 1

/** Normalised discounted cumulative gain of a ranking over the top `k`, from graded judgments by id. */
export const ndcgAt = (ranked: string[], judgments: Record<string, number>, k = DEPTH) => {
  const dcg = ranked.slice(0, k).reduce((s, id, i) => s + gain(judgments[id] ?? 0) / Math.log2(i + 2), 0)
  const ideal = Object.values(judgments)
    .sort((a, b) => b - a)
    .slice(0, k)
    .reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0)
  return ideal ? dcg / ideal : 0
}

/** The value below which `p` percent of the values lie (0 for none). */
export const percentile = (values: number[], p: number) => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0)
