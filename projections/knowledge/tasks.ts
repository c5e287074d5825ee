import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { TaskEvent } from '../../domain/knowledge/task'
import { type Projector, decodeEvent } from '../projector'

/**
 * Processing tasks as the API shows them, and the outbox of jobs to publish: a row per
 * unfinished task, which workers/knowledge/outbox.ts publishes to the job queue and marks. A task's row
 * leaves the outbox when it finishes, so a rebuild (or a restart of the in-process queue)
 * publishes exactly the unfinished ones again.
 */
export const tasksProjector: Projector = {
  name: 'tasks',
  version: 1,
  tables: ['kb_tasks', 'kb_outbox'],
  schema: `
    CREATE TABLE kb_tasks (
      id text PRIMARY KEY, workspace_id text NOT NULL, entry_id text NOT NULL, kind text NOT NULL, status text NOT NULL,
      progress integer NOT NULL, current_step text, result jsonb, error text, attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL, started_at timestamptz, completed_at timestamptz);
    CREATE INDEX kb_tasks_workspace ON kb_tasks (workspace_id, created_at DESC, id DESC);
    CREATE INDEX kb_tasks_entry ON kb_tasks (entry_id);
    CREATE TABLE kb_outbox (
      task_id text PRIMARY KEY, workspace_id text NOT NULL, entry_id text NOT NULL, position bigint NOT NULL,
      queued_at timestamptz NOT NULL, published_at timestamptz);
  `,
  handles: ['TaskQueued', 'TaskStarted', 'TaskProgressed', 'TaskCompleted', 'TaskFailed'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(TaskEvent, recorded)
    const at = recorded.metadata.at
    const id = e.data.taskId
    switch (e.type) {
      case 'TaskQueued':
        await tx.query(
          `INSERT INTO kb_tasks (id, workspace_id, entry_id, kind, status, progress, created_at) VALUES ($1, $2, $3,
            $4, 'pending', 0, $5)
           ON CONFLICT (id) DO NOTHING`,
          [id, e.data.workspaceId, e.data.entryId, e.data.kind, at],
        )
        await tx.query(
          'INSERT INTO kb_outbox (task_id, workspace_id, entry_id, position, queued_at) VALUES ($1, $2, $3, $4, $5) ' +
            'ON CONFLICT (task_id) DO NOTHING',
          [id, e.data.workspaceId, e.data.entryId, recorded.position, at],
        )
        return
      case 'TaskStarted':
        await tx.query(
          `UPDATE kb_tasks SET status = 'processing', attempts = $2, started_at = coalesce(started_at, $3),
            current_step = coalesce(current_step, 'Starting')
           WHERE id = $1 AND status IN ('pending', 'processing')`,
          [id, e.data.attempt, at],
        )
        return
      case 'TaskProgressed':
        await tx.query(
          `UPDATE kb_tasks SET current_step = $2,
            progress = $3 WHERE id = $1 AND status = 'processing' AND progress <= $3`,
          [id, e.data.step, e.data.progress],
        )
        return
      case 'TaskCompleted':
        await tx.query(
          `UPDATE kb_tasks SET status = 'completed', progress = 100, current_step = 'Completed', result = $2,
            completed_at = $3 WHERE id = $1`,
          [id, JSON.stringify(e.data.result), at],
        )
        await tx.query('DELETE FROM kb_outbox WHERE task_id = $1', [id])
        return
      case 'TaskFailed':
        await tx.query(
          `UPDATE kb_tasks SET status = 'failed', progress = $2, error = $3, completed_at = $4 WHERE id = $1`,
          [id, e.data.progress, e.data.error, at],
        )
        await tx.query('DELETE FROM kb_outbox WHERE task_id = $1', [id])
        return
    }
  },
}
