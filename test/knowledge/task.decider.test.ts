import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MAX_ATTEMPTS, type TaskCommand, type TaskEvent, type TaskQueued, task } from '../../domain/knowledge/task'
import { given } from '../../testkit/spec'
import { ENTRY, WS, chunking } from '../helpers/fixtures/entries'

const test = suite('entry and task deciders: task')

const TASK = 'task-1'
const queued: TaskQueued = {
  type: 'TaskQueued',
  data: {
    taskId: TASK,
    workspaceId: WS,
    entryId: ENTRY,
    kind: 'ingest',
    force: false,
    input: { type: 'url', url: 'https://example.com/docs', crawl: { depth: 1, maxPages: 10, sameDomainOnly: true } },
    title: 'Docs home',
    chunking,
    embed: true,
    maxBytes: 1_000_000,
  },
}
const ref = { taskId: TASK, workspaceId: WS, entryId: ENTRY }
const started = (attempt: number): TaskEvent => ({ type: 'TaskStarted', data: { ...ref, attempt } })
const progressed = (step: string, progress: number): TaskEvent => ({
  type: 'TaskProgressed',
  data: { ...ref, step, progress },
})
const result = { chunkCount: 4, wordCount: 120, characterCount: 800, processingTimeMs: 1500 }
const completed: TaskEvent = { type: 'TaskCompleted', data: { ...ref, result } }
const taskFailed = (error: string, progress: number): TaskEvent => ({
  type: 'TaskFailed',
  data: { ...ref, error, progress },
})

const start: TaskCommand = { type: 'StartTask', data: { taskId: TASK } }
const progress = (step: string, p: number): TaskCommand => ({
  type: 'ProgressTask',
  data: { taskId: TASK, step, progress: p },
})
const complete: TaskCommand = { type: 'CompleteTask', data: { taskId: TASK, result } }
const failTask: TaskCommand = { type: 'FailTask', data: { taskId: TASK, error: 'fetch failed: 404' } }

// QueueTask

test('task: queueing a new task records TaskQueued with the command data', () => {
  given(task, []).when({ type: 'QueueTask', data: queued.data }).then([queued])
  const file = {
    ...queued.data,
    input: { type: 'file' as const, blob: 'sha-1', mimeType: 'text/plain', fileName: 'a.txt', size: 10, charset: 'x' },
  }
  given(task, [])
    .when({ type: 'QueueTask', data: file })
    .then([{ type: 'TaskQueued', data: file }])
})

test('task: queueing a task that exists records nothing, whatever its state', () => {
  given(task, [queued]).when({ type: 'QueueTask', data: queued.data }).thenNothing()
  given(task, [queued])
    .when({ type: 'QueueTask', data: { ...queued.data, kind: 'sync' } })
    .thenNothing()
  given(task, [queued, started(1), completed])
    .when({ type: 'QueueTask', data: queued.data })
    .thenNothing()
})

// Every other command on a missing task

test('task: starting, progressing, completing or failing an unknown task is NOT_FOUND', () => {
  for (const command of [start, progress('download', 10), complete, failTask])
    given(task, []).when(command).thenFails('NOT_FOUND', command.type)
})

// StartTask

test('task: starting a pending task records TaskStarted, attempt 1, with the queued ref', () => {
  given(task, [queued])
    .when(start)
    .then([started(1)])
})

test('task: starting a task that is processing (a redelivered job) records the next attempt', () => {
  given(task, [queued, started(1)])
    .when(start)
    .then([started(2)])
  given(task, [queued, started(1), started(2)])
    .when(start)
    .then([started(3)])
})

test(`task: starting a task already started ${MAX_ATTEMPTS} times is CONFLICT`, () => {
  const history = [queued, ...Array.from({ length: MAX_ATTEMPTS }, (_, i) => started(i + 1))]
  assert.is(MAX_ATTEMPTS, 3)
  given(task, history).when(start).thenFails('CONFLICT')
})

test('task: starting a completed task is CONFLICT', () => {
  given(task, [queued, started(1), completed])
    .when(start)
    .thenFails('CONFLICT')
})

test('task: starting a failed task is CONFLICT', () => {
  given(task, [queued, started(1), taskFailed('boom', 0)])
    .when(start)
    .thenFails('CONFLICT')
  given(task, [queued, taskFailed('boom', 0)])
    .when(start)
    .thenFails('CONFLICT')
})

// ProgressTask

test('task: progress forward on a processing task records TaskProgressed', () => {
  given(task, [queued, started(1)])
    .when(progress('download', 10))
    .then([progressed('download', 10)])
  given(task, [queued, started(1), progressed('download', 10)])
    .when(progress('parse', 40))
    .then([progressed('parse', 40)])
})

test('task: progress that does not go forward records nothing', () => {
  const history = [queued, started(1), progressed('parse', 40)]
  given(task, history).when(progress('parse', 40)).thenNothing()
  given(task, history).when(progress('download', 10)).thenNothing()
  // A progress of 0 on a fresh start is not forward either.
  given(task, [queued, started(1)])
    .when(progress('queued', 0))
    .thenNothing()
})

test('task: a new step at the same progress is recorded (pages read one by one), the same step again is not', () => {
  const history = [queued, started(1), progressed('Parsing (OCR, page 20 of 200)', 31)]
  given(task, history)
    .when(progress('Parsing (OCR, page 21 of 200)', 31))
    .then([progressed('Parsing (OCR, page 21 of 200)', 31)])
  given(task, history).when(progress('Parsing (OCR, page 20 of 200)', 31)).thenNothing()
})

test('task: progress of a task that is not processing records nothing', () => {
  given(task, [queued]).when(progress('download', 10)).thenNothing()
  given(task, [queued, started(1), completed])
    .when(progress('embed', 90))
    .thenNothing()
  given(task, [queued, started(1), taskFailed('boom', 10)])
    .when(progress('embed', 90))
    .thenNothing()
})

test("task: a restarted task keeps the previous attempt's progress (earlier steps record nothing)", () => {
  const history = [queued, started(1), progressed('parse', 40), started(2)]
  given(task, history).when(progress('download', 10)).thenNothing()
  given(task, history)
    .when(progress('embed', 70))
    .then([progressed('embed', 70)])
})

// CompleteTask

test('task: completing a processing task records TaskCompleted with its result', () => {
  given(task, [queued, started(1), progressed('embed', 80)])
    .when(complete)
    .then([completed])
})

test('task: completing a task that is not processing records nothing', () => {
  given(task, [queued]).when(complete).thenNothing()
  given(task, [queued, started(1), completed])
    .when(complete)
    .thenNothing()
  given(task, [queued, started(1), taskFailed('boom', 10)])
    .when(complete)
    .thenNothing()
})

// FailTask

test('task: failing a processing task records TaskFailed with the error and the progress reached', () => {
  given(task, [queued, started(1), progressed('parse', 40)])
    .when(failTask)
    .then([taskFailed('fetch failed: 404', 40)])
})

test('task: failing a pending task records TaskFailed at progress 0', () => {
  given(task, [queued])
    .when(failTask)
    .then([taskFailed('fetch failed: 404', 0)])
})

test('task: failing a finished task records nothing', () => {
  given(task, [queued, started(1), completed])
    .when(failTask)
    .thenNothing()
  given(task, [queued, started(1), taskFailed('boom', 10)])
    .when(failTask)
    .thenNothing()
})

test('task: events carry the ref of the queued task, not of the command', () => {
  const other = { taskId: 'task-x' }
  given(task, [queued])
    .when({ type: 'StartTask', data: other })
    .then([started(1)])
  given(task, [queued, started(1)])
    .when({ type: 'CompleteTask', data: { ...other, result } })
    .then([completed])
})

test.run()
