import type { Reranker } from '../../adapters/reranker'
import type { RerankSettings } from '../../domain/knowledge'
import type { SearchResult } from './search'

/**
 * A search's best results reordered by the reranking model: each keeps its own scores and gains
 * `scores.rerank`, and the first `limit` are served. Without a reranker, or when it fails or is
 * slow, the results keep their order, and `engine` says why.
 */
export const rerankResults = async (
  reranker: Reranker | undefined,
  settings: RerankSettings,
  query: string,
  results: SearchResult[],
  limit: number,
): Promise<{ results: SearchResult[]; engine: string }> => {
  if (!reranker) return { results: results.slice(0, limit), engine: 'off: no RERANK_URL is configured' }
  if (results.length === 0) return { results, engine: settings.model }
  try {
    const order = await reranker.rerank(
      settings.model,
      query,
      results.map((r) => r.content),
      results.length,
    )
    const placed = new Set<number>()
    const reordered = order
      .filter(({ index }) => !placed.has(index) && placed.add(index))
      .map(({ index, score }) => {
        const r = results[index]
        return { ...r, scores: { ...r.scores, rerank: Math.round(score * 10_000) / 10_000 } }
      })
    // What the model left out follows, in the search's own order.
    const rest = results.filter((_, i) => !placed.has(i))
    return { results: [...reordered, ...rest].slice(0, limit), engine: settings.model }
  } catch (error) {
    return { results: results.slice(0, limit), engine: `unavailable: ${(error as Error).message}` }
  }
}
