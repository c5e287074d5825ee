// The upload benchmarks' client (ingest-files, blob stores, scale), on a thread of its own as load.ts's:
// uploading and watching the tasks must not share the service's thread (PGlite runs on it too), as no real
// client would.
import { fileURLToPath } from 'node:url'
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads'

export interface Uploads {
  url: string
  /** Each file with the token of the workspace it goes to. */
  files: { name: string; bytes: Uint8Array; token: string }[]
  /** How often each workspace's task list is read. */
  pollMs: number
}

export interface Uploaded {
  /** From the first upload sent until the last task finished. */
  seconds: number
  chunks: number
  /** Per file, from its upload sent until its task was seen completed (ms). */
  latencies: number[]
}

const BOOTSTRAP = fileURLToPath(new URL('../../ingestion/tsWorker.mjs', import.meta.url))

/** Uploads every file at once, then polls the task lists until each task has completed. */
export const runUploads = (uploads: Uploads) =>
  new Promise<Uploaded>((resolve, reject) => {
    const worker = new Worker(BOOTSTRAP, { workerData: { module: import.meta.url, uploads } })
    worker.once('message', (m: Uploaded | { error: string }) =>
      'error' in m ? reject(new Error(m.error)) : resolve(m),
    )
    worker.once('error', reject)
  })

const work = async ({ url, files, pollMs }: Uploads): Promise<Uploaded> => {
  const t0 = performance.now()
  const uploaded = await Promise.all(
    files.map(async (f) => {
      const form = new FormData()
      form.append('title', f.name)
      form.append('source', 'file')
      form.append('file', new Blob([new Uint8Array(f.bytes)]), f.name)
      const sent = performance.now()
      const res = await fetch(`${url}/api/v1/knowledge`, {
        method: 'POST',
        headers: { authorization: `Bearer ${f.token}` },
        body: form,
      })
      const json = (await res.json()) as { success: boolean; data: { taskId: string } }
      if (!json.success) throw new Error(JSON.stringify(json))
      return { taskId: json.data.taskId, sent }
    }),
  )
  const sentAt = new Map(uploaded.map((u) => [u.taskId, u.sent]))
  const tokens = [...new Set(files.map((f) => f.token))]
  const latencies = new Map<string, number>()
  let chunks = 0
  while (latencies.size < uploaded.length) {
    await new Promise((r) => setTimeout(r, pollMs))
    for (const token of tokens) {
      const res = await fetch(`${url}/api/v1/knowledge/tasks?limit=100`, {
        headers: { authorization: `Bearer ${token}` },
      })
      const json = (await res.json()) as {
        success: boolean
        data: { tasks: { id: string; status: string; error?: string; result?: { chunkCount: number } }[] }
      }
      if (!json.success) throw new Error(JSON.stringify(json))
      for (const t of json.data.tasks) {
        if (latencies.has(t.id) || !sentAt.has(t.id) || (t.status !== 'completed' && t.status !== 'failed')) continue
        if (t.status === 'failed') throw new Error(`task failed: ${t.error}`)
        latencies.set(t.id, performance.now() - sentAt.get(t.id)!)
        chunks += t.result!.chunkCount
      }
    }
  }
  return { seconds: (performance.now() - t0) / 1000, chunks, latencies: [...latencies.values()] }
}

if (!isMainThread && workerData?.uploads) {
  work(workerData.uploads).then(
    (r) => parentPort!.postMessage(r),
    (error: Error) => parentPort!.postMessage({ error: error.message }),
  )
}
