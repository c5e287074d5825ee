import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import type { ChunkedContent, ChunkingOptions, Section } from './chunker'
import { ParseError, type ParseInput, type ParseProgress, type Parsed } from './parsers'

const BOOTSTRAP = fileURLToPath(new URL('./tsWorker.mjs', import.meta.url))
const MODULE = new URL('./parserWorker.ts', import.meta.url).href

export interface ParserLimits {
  /** Wall time of one parse. */
  timeoutMs: number
  /** Heap of a parser worker. */
  memoryMb: number
  workers: number
}

/** What a worker does: extract a document's text, or chunk an entry's content (tokenizing is CPU work too). */
export type WorkerJob =
  | { kind: 'parse'; input: ParseInput }
  | { kind: 'chunk'; sections: Section[]; options: ChunkingOptions; background: boolean }

const doing = { parse: 'parsing', chunk: 'chunking' } as const

interface Job {
  job: WorkerJob
  resolve: (result: never) => void
  reject: (e: Error) => void
  progress?: ParseProgress
}

interface Slot {
  worker: Worker
  /** Its modules are loaded: until then it takes no job (which would wait for the boot, however long). */
  ready: boolean
  job?: Job & { timer?: NodeJS.Timeout }
}

/**
 * Parsers and the chunker run in worker threads with a heap limit and a deadline, off the event
 * loop that answers requests: a job that overruns is killed with its worker (which is replaced),
 * and fails with the reason.
 */
export class ParserPool {
  private slots: Slot[] = []
  private queue: Job[] = []
  private closed = false
  private seq = 0

  constructor(private limits: ParserLimits) {}

  /**
   * A document's text. A parse that reports progress (a PDF's pages read by OCR, one by one) gets the
   * deadline anew at each report: the deadline bounds each page, and the rest of the parse.
   */
  parse(input: ParseInput, progress?: ParseProgress): Promise<Parsed> {
    return this.run({ kind: 'parse', input }, progress)
  }

  /** A request's chunking may use the worker kept for it; a `background` one (a task's) may not. */
  chunk(sections: Section[], options: ChunkingOptions, { background = false } = {}): Promise<ChunkedContent> {
    return this.run({ kind: 'chunk', sections, options, background })
  }

  /** Workers started and not stopped. */
  get running(): number {
    return this.slots.length
  }

  /**
   * Starts a worker ahead of the first job: booting one (the parsers' modules, the tokenizer's
   * ranks) takes about a second, and several on a loaded machine, which the first create after a
   * start would otherwise wait for. Answers once it has loaded them (or has stopped).
   */
  warm(): Promise<void> {
    if (this.closed || this.slots.length > 0) return Promise.resolve()
    const { worker } = this.spawn()
    return new Promise<void>((resolve) => {
      worker.on('message', (m: { ready?: boolean }) => m.ready && resolve())
      worker.once('exit', resolve)
    })
  }

  private run<T>(job: WorkerJob, progress?: ParseProgress): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the parser pool is closed'))
    return new Promise<T>((resolve, reject) => {
      // Chunking is short and someone waits on it (an entry's create, a task's last steps): it
      // goes ahead of the parses waiting, behind the chunkings waiting.
      const queued = { job, resolve: resolve as (result: never) => void, reject, progress }
      const firstParse = this.queue.findIndex((q) => q.job.kind === 'parse')
      if (job.kind === 'chunk' && firstParse >= 0) this.queue.splice(firstParse, 0, queued)
      else this.queue.push(queued)
      this.pump()
    })
  }

  async close() {
    this.closed = true
    for (const job of this.queue.splice(0)) job.reject(new Error('the parser pool is closed'))
    await Promise.all(this.slots.map((s) => s.worker.terminate()))
    this.slots = []
  }

  private spawn(): Slot {
    const worker = new Worker(BOOTSTRAP, {
      workerData: { module: MODULE },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 64 },
    })
    const slot: Slot = { worker, ready: false }
    worker.on(
      'message',
      (m: {
        ok: boolean
        result?: never
        message?: string
        expected?: boolean
        detail?: string
        progress?: Parameters<ParseProgress>[0]
        ready?: boolean
      }) => {
        if (m.ready) {
          slot.ready = true
          worker.unref()
          return this.pump()
        }
        const job = slot.job
        if (!job) return
        if (m.progress) {
          job.progress?.(m.progress)
          this.arm(slot)
          return
        }
        clearTimeout(job.timer)
        slot.job = undefined
        if (m.ok) job.resolve(m.result!)
        // A parser's own failure is not the input's fault as far as anyone can tell: said so, its message logged.
        else
          job.reject(
            m.expected
              ? new ParseError(m.message!, m.detail)
              : new ParseError(
                  `${doing[job.job.kind]} failed on this document (the parser broke on it)`,
                  m.detail ?? m.message,
                ),
          )
        this.pump()
      },
    )
    const lost = (reason: string, detail?: string) => {
      if (!this.slots.includes(slot)) return
      this.slots = this.slots.filter((s) => s !== slot)
      // A worker that died booting fails the job waiting longest, so a boot that always fails fails the
      // jobs one by one instead of starting workers for ever.
      const job: Slot['job'] = slot.job ?? (slot.ready ? undefined : this.queue.shift())
      slot.job = undefined
      if (job) {
        clearTimeout(job.timer)
        job.reject(new ParseError(reason, detail))
      }
      if (!this.closed) this.pump()
    }
    worker.on('error', (e: Error & { code?: string }) =>
      e.code === 'ERR_WORKER_OUT_OF_MEMORY'
        ? lost(`the parser ran out of memory (limit ${this.limits.memoryMb} MB)`)
        : lost('the parser crashed on this document', e.message),
    )
    worker.on('exit', () => lost('the parser stopped unexpectedly'))
    // Held (ref) while it boots, as the jobs waiting for it hold no timer yet; then only a job's deadline holds it.
    worker.ref()
    this.slots.push(slot)
    return slot
  }

  /**
   * Background work (parses, a task's chunking) runs on at most `workers` workers; one worker more
   * is kept for requests' chunking, so an entry's create never waits behind a long parse (only
   * behind other chunkings). Tasks' chunking on that worker too cost ingestion about 8 % (a thread
   * more than the cores can run).
   */
  private pump() {
    const background = (job: WorkerJob) => job.kind === 'parse' || job.background
    while (this.queue.length && !this.closed) {
      const occupied = this.slots.filter((s) => s.job && background(s.job.job)).length
      const next = this.queue.findIndex((q) => !background(q.job) || occupied < this.limits.workers)
      if (next < 0) return
      const slot = this.slots.find((s) => s.ready && !s.job)
      if (!slot) {
        // Jobs wait here, not in a worker still booting (seconds on a loaded machine), so the first worker
        // to be free takes the next one; one more starts for each job waiting beyond those booting.
        const booting = this.slots.filter((s) => !s.ready).length
        if (booting >= this.queue.length || this.slots.length >= this.limits.workers + 1) return
        this.spawn()
        continue
      }
      const job = this.queue.splice(next, 1)[0]
      slot.job = { ...job }
      this.arm(slot)
      slot.worker.postMessage({ id: ++this.seq, job: job.job })
    }
  }

  /** Sets a busy worker's deadline (anew): past it, the job fails and the worker is killed. */
  private arm(busy: Slot) {
    const job = busy.job
    if (!job) return
    clearTimeout(job.timer)
    job.timer = setTimeout(() => {
      // The worker leaves the pool at once, so no job is handed to it while it terminates.
      this.slots = this.slots.filter((s) => s !== busy)
      busy.job = undefined
      job.reject(new ParseError(`${doing[job.job.kind]} took longer than ${this.limits.timeoutMs} ms`))
      void busy.worker.terminate()
      this.pump()
    }, this.limits.timeoutMs)
  }
}
