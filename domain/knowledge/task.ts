import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { Chunking, CrawlOptions } from './entry'
import { type Decider, fail, assertNever } from '../shared'

/** What a task reads: a URL (optionally crawled) or a stored upload (by content hash). */
export const TaskInput = t.union([
  t.type({ type: t.literal('url'), url: t.string, crawl: CrawlOptions }),
  t.intersection([
    t.type({ type: t.literal('file'), blob: t.string, mimeType: t.string, fileName: t.string, size: t.number }),
    t.partial({ charset: t.string }),
  ]),
])
export type TaskInput = t.TypeOf<typeof TaskInput>

export const TaskResult = t.intersection([
  t.type({ chunkCount: t.number, wordCount: t.number, characterCount: t.number, processingTimeMs: t.number }),
  // What of the document gave no text (a scanned page OCR could not read), while the rest went in.
  t.partial({ warnings: t.array(t.string) }),
])
export type TaskResult = t.TypeOf<typeof TaskResult>

const Ref = { taskId: t.string, workspaceId: t.string, entryId: t.string }

/**
 * `ingest` fills a new entry; `sync` re-reads a URL entry, and unless `force` keeps the entry as
 * it is when the content's hash did not change.
 */
export const TaskQueued = t.type({
  type: t.literal('TaskQueued'),
  data: t.intersection([
    t.type({
      ...Ref,
      kind: t.keyof({ ingest: null, sync: null }),
      force: t.boolean,
      input: TaskInput,
      title: t.string,
      chunking: Chunking,
      embed: t.boolean,
      maxBytes: t.number,
    }),
    // The client gave no title: `title` is the file's name, and the document's own title replaces it.
    t.partial({ titleFromDocument: t.boolean }),
  ]),
})
export type TaskQueued = t.TypeOf<typeof TaskQueued>
export const TaskStarted = t.type({ type: t.literal('TaskStarted'), data: t.type({ ...Ref, attempt: t.number }) })
export type TaskStarted = t.TypeOf<typeof TaskStarted>
export const TaskProgressed = t.type({
  type: t.literal('TaskProgressed'),
  data: t.type({ ...Ref, step: t.string, progress: t.number }),
})
export type TaskProgressed = t.TypeOf<typeof TaskProgressed>
export const TaskCompleted = t.type({ type: t.literal('TaskCompleted'), data: t.type({ ...Ref, result: TaskResult }) })
export type TaskCompleted = t.TypeOf<typeof TaskCompleted>
export const TaskFailed = t.type({
  type: t.literal('TaskFailed'),
  data: t.type({ ...Ref, error: t.string, progress: t.number }),
})
export type TaskFailed = t.TypeOf<typeof TaskFailed>

export const TaskEvent = t.union([TaskQueued, TaskStarted, TaskProgressed, TaskCompleted, TaskFailed])
export type TaskEvent = t.TypeOf<typeof TaskEvent>

export type TaskCommand =
  | { type: 'QueueTask'; data: TaskQueued['data'] }
  | { type: 'StartTask'; data: { taskId: string } }
  | { type: 'ProgressTask'; data: { taskId: string; step: string; progress: number } }
  | { type: 'CompleteTask'; data: { taskId: string; result: TaskResult } }
  | { type: 'FailTask'; data: { taskId: string; error: string } }

export type TaskState =
  | { status: 'none' }
  | {
      status: 'pending' | 'processing' | 'completed' | 'failed'
      task: TaskQueued['data']
      attempts: number
      progress: number
      /** The step last reported. */
      step?: string
    }

/** A task started this many times without finishing is failed instead of started again. */
export const MAX_ATTEMPTS = 3

/**
 * A task moves forward only: pending → processing → completed | failed, progress never goes
 * back (a report of the same progress and step changes nothing), and a finished task refuses
 * every transition (a redelivered job changes nothing).
 */
export const task: Decider<TaskCommand, TaskEvent, TaskState> = {
  events: TaskEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'TaskQueued') return { status: 'pending', task: event.data, attempts: 0, progress: 0 }
    if (state.status === 'none') return state
    switch (event.type) {
      case 'TaskStarted':
        return { ...state, status: 'processing', attempts: event.data.attempt }
      case 'TaskProgressed':
        return { ...state, progress: event.data.progress, step: event.data.step }
      case 'TaskCompleted':
        return { ...state, status: 'completed', progress: 100 }
      case 'TaskFailed':
        return { ...state, status: 'failed' }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (command.type === 'QueueTask')
      return E.right(state.status === 'none' ? [{ type: 'TaskQueued', data: command.data }] : [])
    if (state.status === 'none') return fail('NOT_FOUND', 'task not found')
    const { taskId, workspaceId, entryId } = state.task
    const ref = { taskId, workspaceId, entryId }
    const finished = state.status === 'completed' || state.status === 'failed'
    switch (command.type) {
      case 'StartTask':
        if (finished) return fail('CONFLICT', `the task is already ${state.status}`)
        if (state.attempts >= MAX_ATTEMPTS)
          return fail('CONFLICT', `the task was started ${state.attempts} times without finishing`)
        return E.right([{ type: 'TaskStarted', data: { ...ref, attempt: state.attempts + 1 } }])
      case 'ProgressTask': {
        // Progress never goes back; once a step is under way, a new step may come at the same progress (a long
        // PDF's pages read by OCR).
        const { progress, step } = command.data
        const newStep = state.step !== undefined && step !== state.step
        if (state.status !== 'processing' || progress < state.progress || (progress === state.progress && !newStep))
          return E.right([])
        return E.right([
          { type: 'TaskProgressed', data: { ...ref, step: command.data.step, progress: command.data.progress } },
        ])
      }
      case 'CompleteTask':
        if (state.status !== 'processing') return E.right([])
        return E.right([{ type: 'TaskCompleted', data: { ...ref, result: command.data.result } }])
      case 'FailTask':
        if (finished) return E.right([])
        return E.right([{ type: 'TaskFailed', data: { ...ref, error: command.data.error, progress: state.progress } }])
      default:
        return assertNever(command)
    }
  },
}
