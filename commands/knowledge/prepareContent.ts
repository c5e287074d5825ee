import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import { type Embedder, normalize } from '../../adapters/embedders/port'
import { cacheVector, embeddingInput, ensureEmbedded } from '../../adapters/embeddingCache'
import type { ChunkSpans, Chunking } from '../../domain/knowledge/entry'
import { type DomainError, fail } from '../../domain/shared'
import type { ChunkedContent, Section } from '../../ingestion/chunker'
import { headingPathAt, subjectOf } from '../../ingestion/headings'
import { entryPassages } from '../../ingestion/passages'
import { ParseError } from '../../ingestion/parsers'
import type { ParserPool } from '../../ingestion/parserPool'

/** A vector brought from another store, for the one passage of a short entry. */
export interface GivenVector {
  model: string
  vector: number[]
}

export interface Prepared {
  content: string
  tokenCount: number
  chunks: ChunkSpans
}

/**
 * Why a given vector cannot stand for the content, if it cannot: another model's, another length, or
 * content of more than one passage (a vector brought from another store is for the whole text).
 */
const givenRefusal = (given: GivenVector, embedder: Embedder, passages: number) => {
  if (given.model !== embedder.model)
    return (
      `the vector is of ${given.model}, and this service embeds with ${embedder.model}; leave it out to embed ` +
      'the text'
    )
  if (given.vector.length !== embedder.dimensions)
    return `the vector has ${given.vector.length} numbers, and ${embedder.model} makes ${embedder.dimensions}`
  if (!given.vector.every(Number.isFinite) || !given.vector.some((x) => x !== 0))
    return 'the vector must hold finite numbers, not all zero'
  if (passages !== 1)
    return (
      `the content is ${passages} passages for ${embedder.model}, and a given vector stands for one (` +
      `${embedder.passageWords ? `about ${embedder.passageWords} words` : 'a chunk'}); leave it out to embed the text`
    )
  return undefined
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
   * `given`: the vector of the content's one passage, brought from another store (kb import).
   */
  options: {
    task?: { onEmbedding: () => Promise<unknown>; onEmbedded: (done: number, total: number) => Promise<unknown> }
    given?: GivenVector
  } = {},
): Promise<E.Either<DomainError, Prepared>> => {
  const { task, given } = options
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
    const passages = entryPassages(content, chunks, deps.embedder.passageWords)
    const pathAt = headingPathAt(content)
    const inputs = passages.map((p) => embeddingInput(subjectOf(title, pathAt(p.start)), p.text))
    if (given) {
      const refused = givenRefusal(given, deps.embedder, passages.length)
      if (refused) return fail('VALIDATION_ERROR', `embedding: ${refused}`, [`embedding: ${refused}`])
      await cacheVector(deps.db, deps.embedder, inputs[0], normalize(given.vector))
    }
    try {
      await ensureEmbedded(deps.db, deps.embedder, inputs, task?.onEmbedded)
    } catch (error) {
      return fail('SERVICE_UNAVAILABLE', `the embedding model is unavailable: ${(error as Error).message}`)
    }
  }
  return E.right({ content, tokenCount, chunks: chunks.map(({ text: _, ...span }) => span) })
}
