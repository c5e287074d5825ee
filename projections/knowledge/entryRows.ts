import type { Client } from '../../adapters/db'
import { searchableText } from '../../adapters/text'
import type { EntryEvent } from '../../domain/knowledge/entry'
import type { TaskEvent } from '../../domain/knowledge/task'

// An entry's row: what its own events say, and its processing state, which the task that fills it moves.

/** When a URL entry is next due for a sync, from the time of its last one. */
const NEXT_SYNC =
  'CASE WHEN sync_enabled THEN coalesce(last_sync_at, $2::timestamptz) + make_interval(secs => sync_interval_hours * ' +
  '3600) END'

/** An entry's row, from the entry's own events. */
export const applyEntry = async (tx: Client, e: EntryEvent, at: string) => {
  switch (e.type) {
    case 'EntryCreated': {
      const d = e.data
      await tx.query(
        `INSERT INTO kb_entries (id, workspace_id, title, content, source, metadata, external_refs, folder_id,
          is_enabled,
           token_count, searchable_text, created_by, created_at, updated_at, task_id, processing_status,
             processing_progress,
           storage, file_bytes, source_url, sync_enabled, sync_interval_hours, sync_status)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14, $15, $16, $17, $18, $19, $20, $21,
           $22)
         ON CONFLICT (id) DO NOTHING`,
        [
          d.entryId,
          d.workspaceId,
          d.title,
          d.content,
          d.source,
          JSON.stringify(d.metadata),
          JSON.stringify(d.externalReferenceIds),
          d.folderId,
          d.isEnabled,
          d.tokenCount,
          searchableText(d.content),
          d.createdBy,
          at,
          d.taskId ?? null,
          d.taskId ? 'pending' : 'completed',
          d.taskId ? 0 : 100,
          d.storage ? JSON.stringify(d.storage) : null,
          d.storage?.size ?? 0,
          d.sourceUrl ?? null,
          d.sync?.enabled ?? null,
          d.sync?.intervalHours ?? null,
          d.sourceUrl ? 'idle' : null,
        ],
      )
      return
    }
    case 'EntryContentProcessed': {
      const d = e.data
      // An entry whose first processing failed has content now (a sync succeeded): it is that task's.
      await tx.query(
        `UPDATE kb_entries SET content = $3, token_count = $4, searchable_text = $5, updated_at = $2,
           last_sync_at = CASE WHEN source_url IS NOT NULL THEN $2::timestamptz ELSE last_sync_at END,
           sync_status = CASE WHEN source_url IS NOT NULL THEN 'idle' END, sync_error = NULL, sync_task_id = NULL,
           task_id = CASE WHEN processing_status = 'failed' THEN $6 ELSE task_id END,
           processing_progress = CASE WHEN processing_status = 'failed' THEN 100 ELSE processing_progress END,
           processing_status = CASE WHEN processing_status = 'failed' THEN 'completed' ELSE processing_status END,
           failure_reason = NULL, failure_task_id = NULL, failed_at = NULL
         WHERE id = $1`,
        [d.entryId, at, d.content, d.tokenCount, searchableText(d.content), d.taskId],
      )
      await tx.query(`UPDATE kb_entries SET next_sync_at = ${NEXT_SYNC} WHERE id = $1`, [d.entryId, at])
      return
    }
    case 'EntrySyncUnchanged':
      await tx.query(
        `UPDATE kb_entries SET last_sync_at = $2, sync_status = 'idle', sync_error = NULL,
          sync_task_id = NULL WHERE id = $1`,
        [e.data.entryId, at],
      )
      await tx.query(`UPDATE kb_entries SET next_sync_at = ${NEXT_SYNC} WHERE id = $1`, [e.data.entryId, at])
      return
    case 'EntryProcessingFailed':
      // A failed sync keeps the old content and is tried again at the next interval. An entry still
      // without content (its first processing failed) says this latest failure's reason.
      if (e.data.sync) {
        await tx.query(
          `UPDATE kb_entries SET sync_status = 'failed', sync_error = $3, sync_task_id = NULL,
             next_sync_at = CASE WHEN sync_enabled THEN $2::timestamptz + make_interval(secs => sync_interval_hours *
               3600) END,
             failure_reason = CASE WHEN processing_status = 'failed' THEN $3 ELSE failure_reason END,
             failure_task_id = CASE WHEN processing_status = 'failed' THEN $4 ELSE failure_task_id END,
             failed_at = CASE WHEN processing_status = 'failed' THEN $2::timestamptz ELSE failed_at END
           WHERE id = $1`,
          [e.data.entryId, at, e.data.error, e.data.taskId],
        )
      }
      return
    case 'EntrySyncRequested':
      await tx.query(
        `UPDATE kb_entries SET sync_status = 'syncing', sync_task_id = $2, sync_requested_at = $3 WHERE id = $1`,
        [e.data.entryId, e.data.taskId, at],
      )
      return
    case 'EntrySyncConfigured':
      await tx.query('UPDATE kb_entries SET sync_enabled = $2, sync_interval_hours = $3 WHERE id = $1', [
        e.data.entryId,
        e.data.settings.enabled,
        e.data.settings.intervalHours,
      ])
      await tx.query(`UPDATE kb_entries SET next_sync_at = ${NEXT_SYNC} WHERE id = $1`, [e.data.entryId, at])
      return
    case 'EntryUpdated': {
      const c = e.data.changes
      // Content written to an entry whose processing failed gives it what the task could not: it is
      // complete, and the failure is behind it.
      await tx.query(
        `UPDATE kb_entries SET title = coalesce($2, title), content = coalesce($3, content),
           metadata = metadata || coalesce($4::jsonb, '{}'::jsonb), is_enabled = coalesce($5, is_enabled),
           token_count = coalesce($6, token_count), searchable_text = coalesce($7, searchable_text), updated_at = $8,
           processing_progress = CASE WHEN $3::text IS NOT NULL AND processing_status = 'failed' THEN 100
             ELSE processing_progress END,
           processing_status = CASE WHEN $3::text IS NOT NULL AND processing_status = 'failed' THEN 'completed'
             ELSE processing_status END,
           failure_reason = CASE WHEN $3::text IS NOT NULL THEN NULL ELSE failure_reason END,
           failure_task_id = CASE WHEN $3::text IS NOT NULL THEN NULL ELSE failure_task_id END,
           failed_at = CASE WHEN $3::text IS NOT NULL THEN NULL ELSE failed_at END
         WHERE id = $1`,
        [
          e.data.entryId,
          c.title ?? null,
          c.content ?? null,
          c.metadata ? JSON.stringify(c.metadata) : null,
          c.isEnabled ?? null,
          c.tokenCount ?? null,
          c.content === undefined ? null : searchableText(c.content),
          at,
        ],
      )
      return
    }
    case 'EntryMetadataReplaced':
      await tx.query('UPDATE kb_entries SET metadata = $2, updated_at = $3 WHERE id = $1', [
        e.data.entryId,
        JSON.stringify(e.data.metadata),
        at,
      ])
      return
    case 'EntryMoved':
      await tx.query('UPDATE kb_entries SET folder_id = $2, updated_at = $3 WHERE id = $1', [
        e.data.entryId,
        e.data.folderId,
        at,
      ])
      return
    case 'EntryVerified':
      await tx.query('UPDATE kb_entries SET verified_at = $2, verified_by = $3 WHERE id = $1', [
        e.data.entryId,
        e.data.at,
        e.data.by,
      ])
      return
    case 'EntryDeleted':
      await tx.query('DELETE FROM kb_entries WHERE id = $1', [e.data.entryId])
      return
  }
}

/** An entry's processing state follows the task that fills it (not its later syncs). */
export const applyTask = async (tx: Client, e: TaskEvent, at: string) => {
  switch (e.type) {
    case 'TaskStarted':
      await tx.query(
        `UPDATE kb_entries SET processing_status = 'processing' WHERE id = $1 AND task_id = $2
          AND processing_status IN ('pending', 'processing')`,
        [e.data.entryId, e.data.taskId],
      )
      return
    case 'TaskProgressed':
      await tx.query(
        'UPDATE kb_entries SET processing_progress = GREATEST(processing_progress, $3) WHERE id = $1 AND task_id = $2',
        [e.data.entryId, e.data.taskId, e.data.progress],
      )
      return
    case 'TaskCompleted':
      await tx.query(
        `UPDATE kb_entries SET processing_status = 'completed',
          processing_progress = 100 WHERE id = $1 AND task_id = $2`,
        [e.data.entryId, e.data.taskId],
      )
      return
    // The reason stays with the entry: its task is only one row among many.
    case 'TaskFailed':
      await tx.query(
        `UPDATE kb_entries SET processing_status = 'failed', processing_progress = $3, failure_reason = $4,
          failure_task_id = $2, failed_at = $5 WHERE id = $1 AND task_id = $2`,
        [e.data.entryId, e.data.taskId, e.data.progress, e.data.error, at],
      )
      return
  }
}
