import { hashingEmbedder } from './hashing'
import { localEmbedder } from './local'
import { openAiEmbedder } from './openai'
import type { Embedder } from './port'

/** Which embedder, and for an OpenAI-compatible one where and which model. */
export interface EmbedderSettings {
  embedder: 'local' | 'hashing' | 'openai'
  openAiApiKey?: string
  openAiBaseUrl?: string
  embeddingModel: string
  embeddingDimensions?: number
  /** Threads running the local model (one per core when unset). */
  embedWorkers?: number
}

/** The embedder the configuration names (EMBEDDER=local | hashing | openai). */
export const createEmbedder = (config: EmbedderSettings): Embedder => {
  switch (config.embedder) {
    case 'hashing':
      return hashingEmbedder()
    case 'local':
      return localEmbedder(config.embedWorkers)
    case 'openai':
      return openAiEmbedder({
        apiKey: config.openAiApiKey ?? '',
        baseURL: config.openAiBaseUrl,
        model: config.embeddingModel,
        dimensions: config.embeddingDimensions,
      })
  }
}
