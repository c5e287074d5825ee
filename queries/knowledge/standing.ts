import type { Queryable } from '../../adapters/db'
import { currentAt } from '../../adapters/history'

/**
 * An entry as it stood at a log position, for who could read it then: not yet created, there (enabled or
 * disabled; null where it was deleted since and its history went with its content), or deleted.
 */
export type EntryStanding =
  | { state: 'absent'; title: string | null }
  | { state: 'present'; title: string | null; enabled: boolean | null }
  | { state: 'deleted'; title: string | null; deleted: { at: string; position: number } }

/** The entry's standing at a log position; undefined where the workspace never held it. */
export const entryStandingAt = async (
  db: Queryable,
  workspaceId: string,
  id: string,
  at: number,
): Promise<EntryStanding | undefined> => {
  const then = await db.query<{ title: string; is_enabled: boolean }>(
    `SELECT title, is_enabled FROM kb_entries_history e WHERE id = $1 AND workspace_id = $2 AND ${currentAt(at, 'e')}`,
    [id, workspaceId],
  )
  if (then.rows[0]) return { state: 'present', title: then.rows[0].title, enabled: then.rows[0].is_enabled }
  const gone = await db.query<{
    title: string | null
    first_position: string | null
    deleted_position: string
    deleted_at: Date
  }>(
    `SELECT title, first_position, deleted_position, deleted_at FROM kb_entry_tombstones
     WHERE id = $1 AND workspace_id = $2`,
    [id, workspaceId],
  )
  const t = gone.rows[0]
  if (t) {
    if (Number(t.deleted_position) <= at)
      return {
        state: 'deleted',
        title: t.title,
        deleted: { at: t.deleted_at.toISOString(), position: Number(t.deleted_position) },
      }
    if (t.first_position !== null && Number(t.first_position) > at) return { state: 'absent', title: t.title }
    return { state: 'present', title: t.title, enabled: null }
  }
  const now = await db.query<{ title: string }>('SELECT title FROM kb_entries WHERE id = $1 AND workspace_id = $2', [
    id,
    workspaceId,
  ])
  return now.rows[0] ? { state: 'absent', title: now.rows[0].title } : undefined
}

/**
 * Whether the workspace's knowledge base was enabled at a log position: the last configuration change that set it
 * by then (enabled where none did).
 */
export const knowledgeBaseEnabledAt = async (db: Queryable, workspaceId: string, at: number) => {
  const { rows } = await db.query<{ enabled: boolean }>(
    `SELECT (data->'changes'->>'enabled')::boolean AS enabled FROM audit_events
     WHERE workspace_id = $1 AND stream_id = 'kbconfig-' || $1 AND position <= $2 AND data->'changes' ? 'enabled'
     ORDER BY position DESC LIMIT 1`,
    [workspaceId, at],
  )
  return rows[0]?.enabled ?? true
}
