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
}

export interface Running {
  /** Latencies in ms, in completion order, once the load has ended. */
  done: Promise<number[]>
  stop(): void
  /** Requests retried once after a pooled connection was reset under the client. */
  resets: () => number
}

/** Clients kept on one thread with their connections open, for loads run in rounds. */
export interface Clients {
  /**
   * Sends `count` requests (bodies from number `from` on; Infinity until `stop`); answers their latencies. One round at
   * a time.
   */
  run(count: number, from?: number): Promise<number[]>
  /** Ends the running round early. */
  stop(): void
  resets: () => number
  close(): Promise<void>
}

type Command = { run: number; from: number } | 'stop'
type Reply = { latencies?: number[]; resets?: number; error?: string }

const BOOTSTRAP = fileURLToPath(new URL('../../ingestion/tsWorker.mjs', import.meta.url))

export const openClients = (load: Load): Clients => {
  let resets = 0
  let failed: Error | undefined
  const worker = new Worker(BOOTSTRAP, { workerData: { module: import.meta.url, load } })
  const waiting: { resolve(l: number[]): void; reject(e: Error): void }[] = []
  const fail = (error: Error) => {
    failed = error
    for (const w of waiting.splice(0)) w.reject(error)
  }
  worker.on('message', (m: Reply) => {
    if (m.resets) resets = m.resets
    if (m.error) fail(new Error(m.error))
    if (m.latencies) waiting.shift()?.resolve(m.latencies)
  })
  worker.once('error', fail)
  const send = (c: Command) => worker.postMessage(c)
  return {
    run: (count, from = 0) => {
      if (failed) return Promise.reject(failed)
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject })
        send({ run: Number.isFinite(count) ? count : -1, from })
      })
    },
    stop: () => send('stop'),
    resets: () => resets,
    close: async () => {
      await worker.terminate()
    },
  }
}

/** Runs `count` requests (Infinity until `stop`) on clients of their own. */
export const startLoad = (load: Load & { count: number }): Running => {
  const clients = openClients(load)
  return { done: clients.run(load.count).finally(() => clients.close()), stop: clients.stop, resets: clients.resets }
}

/** Runs `load` to its end; answers the latencies. */
export const runLoad = (load: Load & { count: number }) => startLoad(load).done

const fill = (body: unknown, i: number) => JSON.stringify(body).replaceAll('{{i}}', String(i))

const serve = ({ url, token, path, bodies, clients }: Load) => {
  let stopped = false
  let resets = 0
  // node:http with keep-alive connections, one per client: a lean client, so what is measured is
  // the API's time rather than a heavier client's own (fetch costs this thread about 0.5 ms a request).
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients })
  const target = new URL(url + path)
  const send = (body: string) =>
    new Promise<string>((resolve, reject) => {
      const req = http.request(
        target,
        {
          method: 'POST',
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (res) => {
          const parts: Buffer[] = []
          res.on('data', (part: Buffer) => parts.push(part))
          res.on('end', () => resolve(Buffer.concat(parts).toString('utf8')))
          res.on('error', reject)
        },
      )
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
  const run = async (count: number, from: number) => {
    stopped = false
    const latencies: number[] = []
    let next = 0
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (!stopped && (count < 0 || next < count)) {
          const i = from + next++
          const t = performance.now()
          await post(fill(bodies[i % bodies.length], i))
          latencies.push(performance.now() - t)
        }
      }),
    )
    return latencies
  }
  parentPort!.on('message', (c: Command) => {
    if (c === 'stop') stopped = true
    else
      run(c.run, c.from).then(
        (latencies) => parentPort!.postMessage({ latencies } satisfies Reply),
        (error: Error) => parentPort!.postMessage({ error: error.message } satisfies Reply),
      )
  })
}

if (!isMainThread && workerData?.load) serve(workerData.load)
