import { createHash } from 'node:crypto'
import { setTimeout } from 'node:timers/promises'
import * as E from 'fp-ts/Either'
import { BlobMissing, type BlobStore } from '../../adapters/blobs'
import type { Queryable } from '../../adapters/db'
import type { Embedder } from '../../adapters/embedders/port'
import { AppendTooLarge, type EventStore } from '../../adapters/eventstore/port'
import { FetchError } from '../../adapters/fetcher'
import type { Logger } from '../../adapters/logger'
import type { Job } from '../../adapters/queue/port'
import { DependencyUnavailable } from '../../adapters/unavailable'
import type { CommandContext } from '../../commands/handle'
import {
  completeTask,
  entryToFill,
  failTask,
  progressTask,
  startTask,
  taskToRun,
  titleFromDocument,
} from '../../commands/knowledge/ingestion'
import { prepareContent } from '../../commands/knowledge/prepareContent'
import type { Section } from '../../ingestion/chunker'
import { crawl } from '../../ingestion/crawler'
import { ParseError } from '../../ingestion/parsers'
import type { ParserPool } from '../../ingestion/parserPool'

export interface IngestDeps {
  store: EventStore
  db: Queryable
  embedder: Embedder
  blobs: BlobStore
  parsers: ParserPool
  log: Logger
  allowPrivateUrls: boolean
  fetchTimeoutMs: number
  /** How long one delivery waits for an unavailable file store, trying again with backoff (default 30 s). */
  blobRetryMs?: number
  /** Aborted when the service stops: a task waiting for the file store stops waiting (its job runs again). */
  stopping?: AbortSignal
  limiter: WorkspaceLimiter
}

/** A task's steps, with the progress each one starts at. */
export const STEPS = {
  download: ['Downloading', 10],
  parse: ['Parsing', 30],
  chunk: ['Chunking', 50],
  embed: ['Generating embeddings', 70],
  store: ['Storing', 90],
} as const

/** At most `perWorkspace` tasks of one workspace run at once in this process; the rest wait. */
export class WorkspaceLimiter {
  private running = new Map<string, number>()
  private waiting = new Map<string, (() => void)[]>()

  constructor(readonly perWorkspace = 10) {}

  async acquire(workspaceId: string): Promise<() => void> {
    while ((this.running.get(workspaceId) ?? 0) >= this.perWorkspace) {
      await new Promise<void>((resolve) =>
        this.waiting.set(workspaceId, [...(this.waiting.get(workspaceId) ?? []), resolve]),
      )
    }
    this.running.set(workspaceId, (this.running.get(workspaceId) ?? 0) + 1)
    return () => {
      this.running.set(workspaceId, (this.running.get(workspaceId) ?? 1) - 1)
      this.waiting.get(workspaceId)?.shift()?.()
    }
  }
}

/** A failure that belongs to the input, not to the service: the task fails with it and is not retried. */
class InputError extends Error {}

/**
 * Failures of the input, the task's reason at once: a fetch or a parse that failed, and a document
 * whose content is over the event store's limit for one write (delivered again, the same file would
 * be parsed and embedded again, only to be refused again).
 */
const expected = (error: unknown) =>
  error instanceof FetchError ||
  error instanceof ParseError ||
  error instanceof InputError ||
  error instanceof AppendTooLarge

/**
 * An upload's bytes. Not there (the store answered that it has no such file): the task fails, for
 * good, saying so. The store unavailable (down, 5xx, throttled): tried again with backoff for
 * `blobRetryMs`, then the delivery fails saying the store was unavailable, and the queue delivers the
 * job again (MAX_DELIVERIES in all) before the task fails with that reason.
 */
const readUpload = async (deps: IngestDeps, hash: string, taskId: string): Promise<Buffer> => {
  const limitMs = deps.blobRetryMs ?? 30_000
  const until = Date.now() + limitMs
  for (let attempt = 1, delay = 200; ; attempt++, delay = Math.min(delay * 2, 5000)) {
    try {
      return await deps.blobs.read(hash)
    } catch (error) {
      if (error instanceof BlobMissing) throw new InputError('the uploaded file is no longer stored')
      if (!(error instanceof DependencyUnavailable)) throw error
      if (Date.now() + delay > until)
        throw new Error(
          `the uploaded file could not be read: ${error.message} (tried ${attempt} times in ${limitMs / 1000} s)`,
        )
      deps.log.warn({ taskId, attempt, reason: error.reason, retryInMs: delay }, 'the file store is unavailable')
      await setTimeout(delay, undefined, { signal: deps.stopping }).catch(() => {
        throw new Error(`the service stopped while the file store was unavailable: ${error.reason}`)
      })
    }
  }
}

const sha256 = (parts: Buffer[]) => {
  const hash = createHash('sha256')
  for (const p of parts) hash.update(p)
  return hash.digest('hex')
}

const systemCtx = (taskId: string, workspaceId: string): CommandContext => ({
  actor: { kind: 'system', process: 'ingest-worker' },
  at: new Date().toISOString(),
  correlationId: taskId,
  workspaceId,
})

/**
 * Runs one task: download, parse, chunk, embed, store, each step an event. An input that cannot
 * be processed fails the task with the reason; anything else throws, so the queue delivers the
 * job again (a started task is redone from the start: chunk ids are the entry's, so nothing
 * doubles, and the entry takes a task's content only once).
 */
export const runTask = async (deps: IngestDeps, job: Job) => {
  const t = await taskToRun(deps.store, job.taskId)
  if (!t) return
  const ref = { taskId: t.taskId, workspaceId: t.workspaceId, entryId: t.entryId, sync: t.kind === 'sync' }
  const release = await deps.limiter.acquire(t.workspaceId)
  try {
    const ctx = () => systemCtx(t.taskId, t.workspaceId)
    const started = await startTask(deps, ctx(), t.taskId)
    if (E.isLeft(started)) {
      await failTask(deps, ctx(), ref, `${started.left.message}; giving up`)
      return
    }
    const began = Date.now()
    const step = (s: readonly [string, number]) => progressTask(deps, ctx(), t.taskId, s[0], s[1])
    try {
      const target = await entryToFill(deps.store, t.entryId)
      if (!target) throw new InputError('the entry was deleted before it was processed')
      await step(STEPS.download)
      let sections: Section[]
      let contentHash: string
      let title = t.title
      let warnings: string[] = []
      const fetchOptions = { maxBytes: t.maxBytes, timeoutMs: deps.fetchTimeoutMs, allowPrivate: deps.allowPrivateUrls }
      if (t.input.type === 'url') {
        const pages = await crawl(t.input.url, t.input.crawl, fetchOptions, deps.parsers, () => step(STEPS.parse))
        contentHash = sha256(pages.map((p) => p.body))
        if (t.kind === 'sync' && !t.force && target.contentHash === contentHash) {
          await completeTask(deps, ctx(), ref, 'unchanged', {
            chunkCount: 0,
            wordCount: 0,
            characterCount: 0,
            processingTimeMs: Date.now() - began,
          })
          return
        }
        // A crawl is one entry: each page a section headed by its URL.
        sections =
          t.input.crawl.depth > 0
            ? pages.map((p) => ({ text: `# ${p.url}\n\n${p.text}`, pageUrl: p.url }))
            : [{ text: pages[0].text, pageUrl: pages[0].url }]
      } else {
        const bytes = await readUpload(deps, t.input.blob, t.taskId)
        contentHash = sha256([bytes])
        await step(STEPS.parse)
        // Pages read by OCR move the progress, one by one, between this step's start and the next one's.
        let reported = Promise.resolve()
        const parsed = await deps.parsers.parse(
          { mimeType: t.input.mimeType, bytes, ...(t.input.charset ? { charset: t.input.charset } : {}) },
          ({ page, of }) => {
            const [, from] = STEPS.parse
            const at = from + Math.floor(((STEPS.chunk[1] - from) * page) / (of + 1))
            // A report is news, not work: one that cannot be written leaves the parse to go on.
            reported = reported
              .then(() => step([`Parsing (OCR, page ${page} of ${of})`, at]))
              .then(
                () => undefined,
                () => undefined,
              )
          },
        )
        await reported
        warnings = parsed.warnings ?? []
        sections = [{ text: parsed.text }]
        if (t.titleFromDocument && parsed.title?.trim()) {
          const retitled = await titleFromDocument(deps, ctx(), ref, t.title, parsed.title)
          if (E.isRight(retitled)) title = retitled.right
        }
      }
      if (sections.every((s) => s.text.trim() === ''))
        throw new InputError('no text could be extracted from the document')
      await step(STEPS.chunk)
      const prepared = await prepareContent(deps, title, sections, t.chunking, t.embed, {
        task: {
          onEmbedding: () => step(STEPS.embed),
          // Progress moves with the passages embedded, between this step's start and the next one's.
          onEmbedded: async (done, total) => {
            const [name, from] = STEPS.embed
            if (done < total) await step([name, from + Math.floor(((STEPS.store[1] - from) * done) / total)])
          },
        },
      })
      // Content the chunking could not finish is the input's fault; an embedder that failed is retried.
      if (E.isLeft(prepared))
        throw prepared.left.code === 'VALIDATION_ERROR'
          ? new InputError(prepared.left.message)
          : new Error(prepared.left.message)
      await step(STEPS.store)
      const content = prepared.right.content
      await completeTask(
        deps,
        ctx(),
        ref,
        { prepared: prepared.right, contentHash, sync: t.kind === 'sync' },
        {
          chunkCount: prepared.right.chunks.length,
          wordCount: content.split(/\s+/).filter(Boolean).length,
          characterCount: content.length,
          processingTimeMs: Date.now() - began,
          ...(warnings.length ? { warnings } : {}),
        },
      )
    } catch (error) {
      if (!expected(error)) throw error
      deps.log.info(
        { taskId: t.taskId, reason: (error as Error).message, detail: (error as ParseError).detail },
        'task failed',
      )
      await failTask(deps, ctx(), ref, (error as Error).message)
    }
  } finally {
    release()
  }
}

/** The queue gave up on a job (it failed MAX_DELIVERIES times): its task fails with the reason. */
export const failDeadJob = async (deps: IngestDeps, job: Job, reason: string) => {
  const t = await taskToRun(deps.store, job.taskId)
  if (!t) return
  await failTask(
    deps,
    systemCtx(t.taskId, t.workspaceId),
    { taskId: t.taskId, workspaceId: t.workspaceId, entryId: t.entryId, sync: t.kind === 'sync' },
    reason,
  )
}
