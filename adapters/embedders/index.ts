import type { Config } from '../../api/config'
import { hashingEmbedder } from './hashing'
import { localEmbedder } from './local'
import { openAiEmbedder } from './openai'
import type { Embedder } from './port'

/** The embedder the configuration names (EMBEDDER=local | hashing | openai). */
export const createEmbedder = (config: Config): Embedder => {
  switch (config.embedder) {
    case 'hashing':
      return hashingEmbedder()
    case 'local':
      return localEmbedder()
    case 'openai':
      return openAiEmbedder({ apiKey: config.openAiApiKey ?? '', baseURL: config.openAiBaseUrl, model: config.embeddingModel })
  }
}
