import { Worker } from 'node:worker_threads'
import { type Embedder, normalize, padTo } from './port'

// The model reads only its first ~128 tokens; windows of this many words stay under ~120.
const WINDOW_WORDS = 80

const windowsOf = (text: string): string[] => {
  const words = text.split(/\s+/).filter(Boolean)
  if (words.length === 0) return ['']
  const out: string[] = []
  for (let i = 0; i < words.length; i += WINDOW_WORDS) out.push(words.slice(i, i + WINDOW_WORDS).join(' '))
  return out
}

/**
 * The local model of DESIGN.md in a worker thread, so the API's event loop never blocks: each
 * text is embedded as windows whose vectors are averaged, then zero-padded from 512 to 1536.
 */
export const localEmbedder = (): Embedder => {
  const worker = new Worker(new URL('./localWorker.mjs', import.meta.url))
  worker.unref()
  let next = 0
  const waiting = new Map<number, { resolve: (v: number[][]) => void; reject: (e: Error) => void }>()
  worker.on('message', (msg: { id: number; vectors?: number[][]; error?: string }) => {
    const w = waiting.get(msg.id)
    waiting.delete(msg.id)
    if (msg.error) w?.reject(new Error(`local embedding model: ${msg.error}`))
    else w?.resolve(msg.vectors!)
  })
  worker.on('error', (error) => {
    for (const w of waiting.values()) w.reject(error)
    waiting.clear()
  })
  const run = (texts: string[]) =>
    new Promise<number[][]>((resolve, reject) => {
      const id = next++
      waiting.set(id, { resolve, reject })
      worker.postMessage({ id, texts })
    })
  return {
    model: 'use-lite-512:w80:pad1536',
    embed: async (texts) => {
      const windows = texts.map(windowsOf)
      const flat = await run(windows.flat())
      let k = 0
      return windows.map((ws) => {
        const sum = new Array<number>(flat[0]?.length ?? 512).fill(0)
        for (let i = 0; i < ws.length; i++, k++) flat[k].forEach((x, d) => (sum[d] += x))
        return padTo(normalize(sum))
      })
    },
    close: async () => void (await worker.terminate()),
  }
}
