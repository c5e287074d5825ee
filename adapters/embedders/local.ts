import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { type Embedder, normalize } from './port'

/**
 * Texts a worker takes at once, at most: an entry's passages are spread over every worker, in
 * parts as large as that allows, since a worker sorts a part's windows by length to batch them.
 */
const MAX_PART = 64

interface Part {
  texts: string[]
  resolve: (v: number[][]) => void
  reject: (e: Error) => void
}

/** One model in one worker thread, one part at a time. */
const modelWorker = () => {
  const worker = new Worker(new URL('./localWorker.mjs', import.meta.url))
  worker.unref()
  let current: Part | undefined
  let tid: number | undefined
  worker.on('message', (msg: { vectors?: number[][]; error?: string; tid?: number }) => {
    if (msg.tid !== undefined) return void (tid = msg.tid)
    const part = current
    current = undefined
    if (msg.error) part?.reject(new Error(`local embedding model: ${msg.error}`))
    else part?.resolve(msg.vectors!)
  })
  worker.on('error', (error) => {
    current?.reject(error)
    current = undefined
  })
  return {
    get idle() {
      return current === undefined
    },
    start(part: Part) {
      current = part
      worker.postMessage({ id: 0, texts: part.texts })
    },
    get tid() {
      return tid
    },
    terminate: () => worker.terminate(),
  }
}

/** The model's id: its vectors are kept at its own 512 dimensions. */
export const LOCAL_MODEL = 'use-lite-512:t128'

/** The embedding workers by default: one per core. */
export const defaultEmbedWorkers = () => availableParallelism()

/**
 * The local model (Universal Sentence Encoder lite, 512 dimensions) in a pool of worker threads
 * (EMBED_WORKERS, one per core by default), so the API's event loop never blocks and every core embeds.
 * Work waits in one queue and each worker takes the next part when it is free; a search's query
 * (one or two texts) goes before the parts of ingestion waiting, and one more worker takes only
 * queries, so a search never waits for a part of ingestion to finish (measured: hybrid p95 while
 * the model ingests went from 2.3 to about 0.9 times the hashing embedder's). A text longer than
 * the model reads (128 of its tokens) is embedded as windows whose vectors are averaged
 * (localWorker.mjs).
 */
export const localEmbedder = (workers = defaultEmbedWorkers()): Embedder => {
  const pool = Array.from({ length: Math.max(1, workers) }, modelWorker)
  // One more worker, for searches' queries only: a query never waits for a part of ingestion.
  const forQueries = modelWorker()
  const queue: Part[] = []
  const dispatch = () => {
    for (const w of [forQueries, ...pool]) {
      const next = w === forQueries ? queue.findIndex((p) => p.texts.length <= 2) : 0
      if (!w.idle || queue.length === 0 || next < 0) continue
      const [part] = queue.splice(next, 1)
      w.start({
        ...part,
        resolve: (v) => (part.resolve(v), dispatch()),
        reject: (e) => (part.reject(e), dispatch()),
      })
    }
  }
  const submit = (texts: string[]) =>
    new Promise<number[][]>((resolve, reject) => {
      const part = { texts, resolve, reject }
      if (texts.length <= 2) queue.unshift(part)
      else queue.push(part)
      dispatch()
    })
  return {
    model: LOCAL_MODEL,
    // About 80 of the model's tokens in English prose, more in code: most passages are read whole.
    passageWords: 40,
    dimensions: 512,
    workers: pool.length,
    threadIds: () => [forQueries, ...pool].flatMap((w) => (w.tid === undefined ? [] : [w.tid])),
    embed: async (texts) => {
      const parts: Promise<number[][]>[] = []
      const size = Math.min(MAX_PART, Math.ceil(texts.length / pool.length))
      for (let i = 0; i < texts.length; i += size) parts.push(submit(texts.slice(i, i + size)))
      return (await Promise.all(parts)).flat().map(normalize)
    },
    close: async () => {
      await Promise.all([forQueries, ...pool].map((w) => w.terminate()))
      for (const part of queue.splice(0)) part.reject(new Error('local embedding model: closed'))
    },
  }
}
