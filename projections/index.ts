import type { Database } from '../adapters/db'
import { embeddingCacheSchema, enableVectors } from '../adapters/embeddingCache'
import { type EmbedderSettings, createEmbedder } from '../adapters/embedders'
import type { Embedder } from '../adapters/embedders/port'
import type { Logger } from '../adapters/logger'
import { openTextIndex } from '../adapters/textIndex'
import type { TextIndex } from '../adapters/textIndex/port'
import type { Projector } from './projector'

export interface ProjectorDeps {
  embedder: Embedder
  /** Whether the database has pgvector. */
  vectors: boolean
  textIndex: TextIndex
  /** Tests only: the search index spells every word backwards (projections/search/chunks.ts). */
  garbled?: boolean
}

/** How the service makes its projectors (the capabilities' projectors), given what they need. */
export type Projectors = (deps: ProjectorDeps) => Projector[]

/** The embedder, the embedding cache, pgvector and the text index the projectors need, then the projectors. */
export const setupProjectors = async (
  db: Database,
  config: EmbedderSettings & { elasticsearchUrl?: string; elasticsearchReplicas?: number; testGarbledIndex?: boolean },
  log: Logger,
  createProjectors: Projectors,
) => {
  await db.pool.query(embeddingCacheSchema)
  const vectors = await enableVectors(db.pool)
  if (!vectors)
    log.warn('pgvector is not installed: vectors are stored as real[] and searched by comparing each (slower, exact)')
  const embedder = createEmbedder(config)
  const textIndex = await openTextIndex(db.pool, config.elasticsearchUrl, {
    replicas: config.elasticsearchReplicas,
    log,
  })
  const garbled = config.testGarbledIndex
  return { embedder, vectors, textIndex, projectors: createProjectors({ embedder, vectors, textIndex, garbled }) }
}
