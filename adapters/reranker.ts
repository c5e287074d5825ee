import * as E from 'fp-ts/Either'
import * as t from 'io-ts'

/**
 * A reranking model served over HTTP in the common wire format (Text Embeddings Inference,
 * Infinity, Jina, Cohere): `POST <url>/rerank` with `{ model, query, documents, top_n }`, answered
 * by `{ results: [{ index, relevance_score }] }`, best first.
 */
export interface Reranker {
  /** Where it is served (for `engines` and `/health`). */
  url: string
  /** The documents' relevance to the query, by their index in `documents`; throws on a timeout or a bad answer. */
  rerank(
    model: string,
    query: string,
    documents: string[],
    topN: number,
  ): Promise<Array<{ index: number; score: number }>>
}

const Answer = t.type({ results: t.array(t.type({ index: t.number, relevance_score: t.number })) })

export const httpReranker = (url: string, timeoutMs: number): Reranker => ({
  url,
  async rerank(model, query, documents, topN) {
    const response = await fetch(`${url.replace(/\/+$/, '')}/rerank`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, query, documents, top_n: topN }),
      signal: AbortSignal.timeout(timeoutMs),
    }).catch((error: Error) => {
      throw new Error(error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : error.message)
    })
    if (!response.ok) throw new Error(`it answered HTTP ${response.status}`)
    const decoded = Answer.decode(await response.json().catch(() => undefined))
    if (E.isLeft(decoded)) throw new Error('its answer is not { results: [{ index, relevance_score }] }')
    return decoded.right.results
      .filter((r) => Number.isInteger(r.index) && r.index >= 0 && r.index < documents.length)
      .map((r) => ({ index: r.index, score: r.relevance_score }))
  },
})
