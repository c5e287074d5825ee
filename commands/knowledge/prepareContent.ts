import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import type { Embedder } from '../../adapters/embedders/port'
import { embeddingInput, ensureEmbedded } from '../../adapters/embeddingCache'
import type { ChunkSpans, Chunking } from '../../domain/knowledge/entry'
import { type DomainError, fail } from '../../domain/shared'
import type { ChunkedContent, Section } from '../../ingestion/chunker'
import { headingPathAt, subjectOf } from '../../ingestion/headings'
import { entryPassages } from '../../ingestion/passages'
import { ParseError } from '../../ingestion/parsers'
import type { ParserPool } from '../../ingestion/parserPool'

export interface Prepared {
  content: string
  tokenCount: number
  chunks: ChunkSpans
}

/**
 * Chunks the content once, for the event to carry, and embeds its passages into the cache before
 * the write so the projection finds them; a failing embedder is a 503 and nothing is written.
 * Sections are joined by a blank line and chunked one by one.
 */
export const prepareContent = async (
  deps: { db: Queryable; embedder: Embedder; parsers: Pick<ParserPool, 'chunk'> },
  title: string,
  sections: Section[],
  chunking: Chunking,
  embed: boolean,
  /**
   * For a task: its chunking is background work (it shares the parsers' workers instead of the
   * one kept for requests), and it is told when embedding starts and how far it got (its progress).
   */
  task?: { onEmbedding: () => Promise<unknown>; onEmbedded: (done: number, total: number) => Promise<unknown> },
): Promise<E.Either<DomainError, Prepared>> => {
  let chunked: ChunkedContent
  try {
    chunked = await deps.parsers.chunk(sections, chunking, { background: task !== undefined })
  } catch (error) {
    // Over the chunking worker's time or memory limit: the content is refused, the service goes on.
    if (error instanceof ParseError)
      return fail('VALIDATION_ERROR', `the content could not be chunked: ${error.message}`, [
        `content: ${error.message}`,
      ])
    throw error
  }
  const { content, tokenCount, chunks } = chunked
  await task?.onEmbedding()
  if (embed) {
    try {
      const passages = entryPassages(content, chunks, deps.embedder.passageWords)
      const pathAt = headingPathAt(content)
      await ensureEmbedded(
        deps.db,
        deps.embedder,
        passages.map((p) => embeddingInput(subjectOf(title, pathAt(p.start)), p.text)),
        task?.onEmbedded,
      )
    } catch (error) {
      return fail('SERVICE_UNAVAILABLE', `the embedding model is unavailable: ${(error as Error).message}`)
    }
  }
  return E.right({ content, tokenCount, chunks: chunks.map(({ text: _, ...span }) => span) })
}
