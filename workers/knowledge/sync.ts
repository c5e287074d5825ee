import * as E from 'fp-ts/Either'
import type { Logger } from '../../adapters/logger'
import type { CommandContext } from '../../commands/handle'
import { queueSyncTask, requestSync } from '../../commands/knowledge/ingestion'
import type { KnowledgeDeps } from '../../commands/knowledge/knowledge'

const ctx = (workspaceId: string): CommandContext => ({
  actor: { kind: 'system', process: 'sync-scheduler' },
  at: new Date().toISOString(),
  correlationId: `sync-${Date.now()}`,
  workspaceId,
})

/**
 * Requests the syncs that are due (change detection happens in the task: an unchanged hash only
 * moves lastSyncAt and nextSyncAt), and queues the task of any sync requested over a minute ago
 * whose task was never written.
 */
export const runDueSyncs = async (deps: KnowledgeDeps, log: Logger) => {
  const due = await deps.db.query<{ id: string; workspace_id: string }>(
    `SELECT id, workspace_id FROM kb_entries WHERE sync_enabled AND next_sync_at <= now() AND sync_status IS DISTINCT
      FROM 'syncing'
     ORDER BY next_sync_at LIMIT 100`,
  )
  let requested = 0
  for (const row of due.rows) {
    const done = await requestSync(deps, ctx(row.workspace_id), row.workspace_id, row.id, false)
    if (E.isRight(done) && done.right.taskId) requested++
  }
  const lost = await deps.db.query<{ id: string; workspace_id: string; sync_task_id: string }>(
    `SELECT e.id, e.workspace_id, e.sync_task_id FROM kb_entries e
     WHERE e.sync_status = 'syncing' AND e.sync_requested_at < now() - interval '60 seconds'
       AND NOT EXISTS (SELECT 1 FROM kb_tasks t WHERE t.id = e.sync_task_id)`,
  )
  for (const row of lost.rows) {
    log.warn(
      { entryId: row.id, taskId: row.sync_task_id },
      'queueing the task of a sync whose request outlived a crash',
    )
    await queueSyncTask(deps, ctx(row.workspace_id), row.workspace_id, row.id, row.sync_task_id, false)
  }
  return requested
}

export const startSyncScheduler = (deps: KnowledgeDeps, log: Logger, intervalMs: number) => {
  let running = false
  const tick = async () => {
    if (running) return
    running = true
    try {
      await runDueSyncs(deps, log)
    } catch (error) {
      log.error({ err: error }, 'sync scheduler failed')
    } finally {
      running = false
    }
  }
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
