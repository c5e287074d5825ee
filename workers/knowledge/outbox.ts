import { type Database, type Queryable, inTransaction } from '../../adapters/db'
import type { Logger } from '../../adapters/logger'
import type { JobQueue } from '../../adapters/queue/port'

/** A task whose entry has not appeared this long after it was queued is published anyway (and fails). */
const ORPHAN_GRACE = '60 seconds'

/**
 * Publishes the outbox (unfinished tasks, kept by the tasks projection) to the job queue and marks
 * what the queue confirmed. A broker that is down leaves the rows unpublished until it is back;
 * a crash between publishing and marking publishes a job twice, which the task aggregate absorbs.
 */
export const publishOutbox = (db: Database, queue: JobQueue, log: Logger) =>
  db.kind === 'pglite'
    ? publishRows(db.pool, queue, log)
    : // Processes sharing a server take turns, so one job is not published by each of them.
      inTransaction(db.pool, async (tx) => {
        const { rows } = await tx.query<{ got: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1)) AS got', [
          'kb-outbox',
        ])
        return rows[0].got ? publishRows(tx, queue, log) : 0
      })

const publishRows = async (db: Queryable, queue: JobQueue, log: Logger) => {
  const { rows } = await db.query<{ task_id: string; workspace_id: string }>(
    `SELECT o.task_id, o.workspace_id FROM kb_outbox o
     WHERE o.published_at IS NULL
       AND (EXISTS (SELECT 1 FROM kb_entries e WHERE e.id = o.entry_id)
         OR o.queued_at < now() - interval '${ORPHAN_GRACE}')
     ORDER BY o.position LIMIT 200`,
  )
  let published = 0
  for (const row of rows) {
    try {
      await queue.publish({ taskId: row.task_id, workspaceId: row.workspace_id })
    } catch (error) {
      log.warn(
        { err: (error as Error).message, pending: rows.length - published },
        'job queue unavailable; the outbox will retry',
      )
      break
    }
    await db.query('UPDATE kb_outbox SET published_at = now() WHERE task_id = $1', [row.task_id])
    published++
  }
  return published
}

/**
 * The outbox loop: woken after each projection batch and every `intervalMs`. With a queue that
 * does not outlive the process, every unfinished task is published again first (resumed at start).
 */
export const startOutbox = async (db: Database, queue: JobQueue, log: Logger, intervalMs = 1000) => {
  if (!queue.durable) await db.pool.query('UPDATE kb_outbox SET published_at = NULL')
  let running: Promise<unknown> | undefined
  let again = false
  const kick = () => {
    if (running) {
      again = true
      return
    }
    running = publishOutbox(db, queue, log)
      .catch((error) => log.error({ err: error }, 'outbox publish failed'))
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          kick()
        }
      })
  }
  kick()
  const timer = setInterval(kick, intervalMs)
  timer.unref()
  return {
    kick,
    stop: async () => {
      clearInterval(timer)
      await running
    },
  }
}
