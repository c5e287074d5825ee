import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { TaskEvent, TaskQueued } from '../../domain/knowledge/task'
import { tasksProjector } from '../../projections/knowledge/tasks'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: processing tasks and the outbox')
const spec = projectorSpec(tasksProjector)

const ref = { taskId: 'task-1', workspaceId: 'ws-1', entryId: 'entry-1' }
const queued: TaskQueued = {
  type: 'TaskQueued',
  data: {
    ...ref,
    kind: 'ingest',
    force: false,
    input: { type: 'url', url: 'https://example.com/a', crawl: { depth: 0, maxPages: 1, sameDomainOnly: true } },
    title: 'A',
    chunking: { chunkSizeTokens: 512, overlapTokens: 64, preserveSentences: true },
    embed: true,
    maxBytes: 1_000_000,
  },
}
const started: TaskEvent = { type: 'TaskStarted', data: { ...ref, attempt: 1 } }
const progressed = (step: string, progress: number): TaskEvent => ({
  type: 'TaskProgressed',
  data: { ...ref, step, progress },
})
const result = { chunkCount: 3, wordCount: 120, characterCount: 700, processingTimeMs: 40 }

test('a queued task is pending and waits in the outbox', () =>
  spec.given([queued]).then((rows) => {
    assert.equal(
      rows.kb_tasks.map((r) => [r.id, r.status, r.progress, r.kind]),
      [['task-1', 'pending', 0, 'ingest']],
    )
    assert.equal(
      rows.kb_outbox.map((r) => [r.task_id, Number(r.position), r.published_at]),
      [['task-1', 1, null]],
    )
  }))

test('progress only moves forward while the task runs', () =>
  spec.given([queued, started, progressed('Parsing', 40), progressed('Fetching', 20)]).then((rows) => {
    const [task] = rows.kb_tasks
    assert.equal([task.status, task.progress, task.current_step, task.attempts], ['processing', 40, 'Parsing', 1])
  }))

test('a completed task keeps its result and leaves the outbox; later progress changes nothing', () =>
  spec
    .given([queued, started, { type: 'TaskCompleted', data: { ...ref, result } }, progressed('Embedding', 90)])
    .then((rows) => {
      const [task] = rows.kb_tasks
      assert.equal([task.status, task.progress, task.current_step], ['completed', 100, 'Completed'])
      assert.equal(task.result, result)
      assert.equal(rows.kb_outbox, [])
    }))

test('a failed task keeps its reason and the progress it reached', () =>
  spec
    .given([
      queued,
      started,
      progressed('Fetching', 10),
      { type: 'TaskFailed', data: { ...ref, error: 'HTTP 404', progress: 10 } },
    ])
    .then((rows) => {
      const [task] = rows.kb_tasks
      assert.equal([task.status, task.progress, task.error], ['failed', 10, 'HTTP 404'])
      assert.ok(task.completed_at instanceof Date)
      assert.equal(rows.kb_outbox, [])
    }))

test.run()
