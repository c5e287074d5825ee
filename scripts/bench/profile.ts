// A CPU profile of the service's own thread (where Koa, the commands, the projections and PGlite's
// WebAssembly run), summed by where the time went: what a bench reports beside its ratio.
import fs from 'node:fs'
import { Session } from 'node:inspector/promises'
import { threadCpuSeconds } from '../../testkit/threads'

interface Node {
  id: number
  callFrame: { functionName: string; url: string }
}
interface Profile {
  nodes: Node[]
  samples: number[]
  timeDeltas: number[]
}

/** Where a function's time counts: PGlite (SQL), the garbage collector, idle, or the service's JavaScript. */
const bucket = ({ functionName, url }: Node['callFrame']) => {
  if (functionName === '(idle)') return 'idle'
  if (functionName === '(garbage collector)') return 'garbage collection'
  if (url.startsWith('wasm://') || url.includes('@electric-sql/pglite')) return 'PGlite (SQL in WebAssembly)'
  if (url.includes('node_modules/')) return `libraries: ${url.split('node_modules/').pop()?.split('/')[0]}`
  if (url.startsWith('node:') || url === '' || functionName === '(program)') return 'Node (I/O, internals)'
  return 'the service (TypeScript)'
}

export const startProfile = async () => {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.setSamplingInterval', { interval: 1000 })
  await session.post('Profiler.start')
  return {
    /** Milliseconds of the thread by bucket, most first. */
    stop: async (): Promise<[string, number][]> => {
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile }
      session.disconnect()
      const byId = new Map(profile.nodes.map((n) => [n.id, n]))
      const ms = new Map<string, number>()
      profile.samples.forEach((id, i) => {
        const name = bucket(byId.get(id)!.callFrame)
        ms.set(name, (ms.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000)
      })
      return [...ms].sort((a, b) => b[1] - a[1])
    },
  }
}

/**
 * Time of each SQL statement the service sends (node-postgres's client, from the call to its answer),
 * summed by the statement's first words: which statements the thread's SQL time is.
 */
export const startSqlProfile = async () => {
  const pg = (await import('pg')).default
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }
  const original = proto.query
  const ms = new Map<string, { ms: number; n: number }>()
  proto.query = function (this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string })?.text ?? '?')
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 90)
    const started = performance.now()
    const result = original.apply(this, args)
    if (result instanceof Promise)
      result
        .finally(() => {
          const s = ms.get(key) ?? { ms: 0, n: 0 }
          ms.set(key, { ms: s.ms + performance.now() - started, n: s.n + 1 })
        })
        .catch(() => undefined)
    return result
  }
  return {
    stop: () => {
      proto.query = original
      return [...ms].sort((a, b) => b[1].ms - a[1].ms)
    },
  }
}

/**
 * CPU seconds by what ran on the cores over a run: the service's thread (its JavaScript and PGlite), the
 * embedding model's threads (`modelThreads`, asked at the end: they start lazily), and every other thread
 * (the parsers' and chunkers' workers, the garbage collector's and libuv's helpers). Threads that ended during
 * the run are not counted.
 */
export const startThreadCpu = () => {
  if (!fs.existsSync('/proc/self/task')) return { stop: (_model: number[]) => undefined }
  const before = threadCpuSeconds()
  return {
    stop: (modelThreads: number[]) => {
      const model = new Set(modelThreads)
      const split = { service: 0, model: 0, other: 0 }
      for (const [tid, s] of threadCpuSeconds()) {
        const used = s - (before.get(tid) ?? 0)
        if (tid === process.pid) split.service += used
        else if (model.has(tid)) split.model += used
        else split.other += used
      }
      return split
    },
  }
}
