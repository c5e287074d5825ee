import OpenAI from 'openai'
import { type Embedder, checkVector } from './port'

export interface OpenAiOptions {
  apiKey: string
  baseURL?: string
  model: string
  /** The model's vector length; every answer is checked against it. */
  dimensions?: number
  batchSize?: number
  maxRetries?: number
}

/**
 * Any OpenAI-compatible embeddings endpoint. The SDK retries 429 and 5xx answers with
 * exponential backoff; every vector is checked for length and finiteness before use.
 */
export const openAiEmbedder = (options: OpenAiOptions): Embedder => {
  const client = new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    maxRetries: options.maxRetries ?? 4,
    timeout: 60_000,
  })
  const batchSize = options.batchSize ?? 96
  const model = `openai:${options.model}`
  const dimensions = options.dimensions ?? 1536
  return {
    model,
    dimensions,
    embed: async (texts) => {
      const out: number[][] = []
      for (let i = 0; i < texts.length; i += batchSize) {
        const input = texts.slice(i, i + batchSize)
        const res = await client.embeddings.create({ model: options.model, input, encoding_format: 'float' })
        if (res.data.length !== input.length)
          throw new Error(`${model} answered ${res.data.length} vectors for ${input.length} inputs`)
        const ordered = [...res.data].sort((a, b) => a.index - b.index)
        for (const d of ordered) out.push(checkVector(d.embedding, model, dimensions))
      }
      return out
    },
  }
}
