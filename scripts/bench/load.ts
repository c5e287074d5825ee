// The benchmarks' HTTP clients run in a worker thread: a client's own work (HTTP, JSON) must not
// share the service's thread (PGlite runs on it too), as no real client would.
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

export interface Load {
  url: string
  token: string
  path: string
  /** Request bodies, cycled; `{{i}}` in a string is replaced by the request's number. */
  bodies: unknown[]
  /** Concurrent clients. */
  clients: number
  /** Requests in all; Infinity runs until `stop`. */
  count: number
}

export interface Running {
  /** Latencies in ms, in completion order, once the load has ended. */
  done: Promise<number[]>
  stop(): void
  /** Requests retried once after a pooled connection was reset under the client. */
  resets: () => number
}

const BOOTSTRAP = fileURLToPath(new URL('../../workers/tsWorker.mjs', import.meta.url))

export const startLoad = (load: Load): Running => {
  let resets = 0
  const worker = new Worker(BOOTSTRAP, { workerData: { module: import.meta.url, load: { ...load, count: Number.isFinite(load.count) ? load.count : -1 } } })
  const done = new Promise<number[]>((resolve, reject) => {
    worker.on('message', (m: { latencies?: number[]; resets?: number; error?: string }) => {
      if (m.resets) resets = m.resets
      if (m.error) reject(new Error(m.error))
      if (m.latencies) resolve(m.latencies)
    })
    worker.once('error', reject)
  }).finally(() => worker.terminate())
  return { done, stop: () => worker.postMessage('stop'), resets: () => resets }
}

/** Runs `load` to its end; answers the latencies. */
export const runLoad = (load: Load) => startLoad(load).done

const fill = (body: unknown, i: number) => JSON.stringify(body).replaceAll('{{i}}', String(i))

const work = async ({ url, token, path, bodies, clients, count }: Load) => {
  let stopped = false
  let resets = 0
  parentPort!.on('message', () => {
    stopped = true
  })
  // node:http with keep-alive connections, one per client: a lean client, so what is measured is
  // the API's time rather than a heavier client's own (fetch costs this thread about 0.5 ms a request).
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients })
  const target = new URL(url + path)
  const send = (body: string) => new Promise<string>((resolve, reject) => {
    const req = http.request(target, {
      method: 'POST', agent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const parts: Buffer[] = []
      res.on('data', (part: Buffer) => parts.push(part))
      res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
  const post = async (body: string, retry = true): Promise<void> => {
    let text: string
    try {
      text = await send(body)
    } catch (error) {
      // A pooled connection can be reset under the client as it reuses it; count it and try once more.
      if (!retry) throw error
      parentPort!.postMessage({ resets: ++resets })
      return post(body, false)
    }
    const json = JSON.parse(text) as { success: boolean }
    if (!json.success) throw new Error(`${path}: ${text}`)
  }
  const latencies: number[] = []
  let next = 0
  await Promise.all(Array.from({ length: clients }, async () => {
    while (!stopped && (count < 0 || next < count)) {
      const i = next++
      const t = performance.now()
      await post(fill(bodies[i % bodies.length], i))
      latencies.push(performance.now() - t)
    }
  }))
  parentPort!.postMessage({ latencies })
}

if (!isMainThread && workerData?.load) {
  work(workerData.load).catch((error: Error) => parentPort!.postMessage({ error: error.message }))
}
