// Processing tasks as the API shows them.
import type { Queryable } from '../../adapters/db'

/** A row of kb_tasks (projections/knowledge/tasks.ts). */
export interface TaskRow {
  id: string
  workspace_id: string
  entry_id: string
  kind: string
  status: string
  progress: number
  current_step: string | null
  result: unknown
  error: string | null
  attempts: number
  created_at: Date
  started_at: Date | null
  completed_at: Date | null
}

export const taskView = (r: TaskRow) => ({
  id: r.id,
  status: r.status,
  progress: r.progress,
  ...(r.current_step ? { currentStep: r.current_step } : {}),
  ...(r.status === 'completed' ? { documentId: r.entry_id, result: r.result } : {}),
  ...(r.status === 'failed' ? { error: r.error } : {}),
  entryId: r.entry_id,
  kind: r.kind,
  createdAt: r.created_at.toISOString(),
  ...(r.started_at ? { startedAt: r.started_at.toISOString() } : {}),
  ...(r.completed_at ? { completedAt: r.completed_at.toISOString() } : {}),
})

/** The task list, newest first; `limit` is "items per page", so `page` (from 1) pages through it. */
export const listTasks = async (
  db: Queryable,
  workspaceId: string,
  status: string | undefined,
  limit: number,
  page = 1,
) => {
  const args: unknown[] = [workspaceId]
  const where = status ? (args.push(status), 'AND status = $2') : ''
  const total = (
    await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM kb_tasks WHERE workspace_id = $1 ${where}`, args)
  ).rows[0].n
  const { rows } = await db.query<TaskRow>(
    `SELECT * FROM kb_tasks WHERE workspace_id = $1 ${where} ORDER BY created_at DESC,
      id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    args,
  )
  return { tasks: rows.map(taskView), total }
}

export const getTask = async (db: Queryable, workspaceId: string, id: string) => {
  const { rows } = await db.query<TaskRow>('SELECT * FROM kb_tasks WHERE id = $1 AND workspace_id = $2', [
    id,
    workspaceId,
  ])
  return rows[0] ? taskView(rows[0]) : undefined
}
