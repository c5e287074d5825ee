import type { Queryable } from '../../adapters/db'
import { readKbConfig } from './kbConfig'
import type { StorageInfo } from '../../domain/knowledge/entry'
import { currentAt } from '../../adapters/history'
import { citedCountJoined } from '../citedCount'

// Read-side queries over the knowledge read models, and the JSON shapes of the API.

const LAST_ACTIVITY = 'GREATEST(e.updated_at, e.verified_at, e.last_sync_at)'
/** How often searches served the entry (counted by search's projector of what was served), joined as `cited`. */
const CITED = citedCountJoined('entry', 'e.id')
/**
 * Freshness, derived at read time from the workspace's freshnessDays. An entry without content (its task
 * pending or failed) vouches for nothing, however recent: unknown.
 */
const FRESHNESS = `CASE WHEN e.content = '' THEN 'unknown'
  WHEN ${LAST_ACTIVITY} >= now() - make_interval(days => $FRESH) THEN 'current'
  WHEN ${CITED.count} >= 5 THEN 'stale' ELSE 'unknown' END`

const iso = (d: Date | null) => (d ? d.toISOString() : null)

/** A row of kb_entries as the driver reads it (projections/knowledge/knowledge.ts owns the table). */
export interface EntryRow {
  id: string
  workspace_id: string
  title: string
  content: string
  source: string
  metadata: Record<string, unknown>
  external_refs: Record<string, string>
  folder_id: string | null
  is_enabled: boolean
  token_count: number
  searchable_text: string
  created_by: string
  created_at: Date
  updated_at: Date
  verified_at: Date | null
  verified_by: string | null
  last_sync_at: Date | null
  file_bytes: number
  task_id: string | null
  processing_status: string
  processing_progress: number
  storage: StorageInfo | null
  source_url: string | null
  sync_enabled: boolean | null
  sync_interval_hours: number | null
  next_sync_at: Date | null
  sync_status: string | null
  sync_error: string | null
  sync_task_id: string | null
  sync_requested_at: Date | null
  failure_reason: string | null
  failure_task_id: string | null
  failed_at: Date | null
}

/** An entry row with its freshness and cited count, worked out at read time. */
type FreshEntryRow = EntryRow & { freshness: string; cited_count: number }

/** A URL sync config; sourceUrl only where the GET of sync-config shows it. */
export const syncConfigView = (r: EntryRow, withSource = false) => ({
  enabled: r.sync_enabled ?? false,
  intervalHours: r.sync_interval_hours ?? 24,
  lastSyncAt: iso(r.last_sync_at),
  nextSyncAt: iso(r.next_sync_at),
  status: r.sync_status ?? 'idle',
  ...(r.sync_status === 'failed' && r.sync_error ? { error: r.sync_error } : {}),
  ...(withSource ? { sourceUrl: r.source_url } : {}),
})

/** Why the entry's latest processing failed, while it stands failed. */
const failureView = (r: EntryRow) =>
  r.processing_status === 'failed' && r.failure_reason !== null && r.failure_task_id && r.failed_at
    ? { failure: { reason: r.failure_reason, taskId: r.failure_task_id, at: r.failed_at.toISOString() } }
    : {}

export const entryView = (r: FreshEntryRow) => ({
  id: r.id,
  workspaceId: r.workspace_id,
  title: r.title,
  content: r.content,
  source: r.source,
  metadata: r.metadata,
  externalReferenceIds: r.external_refs,
  searchableText: r.searchable_text,
  isEnabled: r.is_enabled,
  tokenCount: r.token_count,
  ...(r.folder_id ? { folderId: r.folder_id } : {}),
  ...(r.storage
    ? {
        storageInfo: {
          fileName: r.storage.fileName,
          mimeType: r.storage.mimeType,
          size: r.storage.size,
          sha256: r.storage.blob,
          ...(r.storage.charset ? { charset: r.storage.charset } : {}),
        },
      }
    : {}),
  ...(r.source_url ? { syncConfig: syncConfigView(r) } : {}),
  processingStatus: r.processing_status,
  processingProgress: r.processing_progress,
  ...(r.task_id ? { taskId: r.task_id } : {}),
  ...failureView(r),
  citedCount: r.cited_count,
  freshness: r.freshness,
  ...(r.verified_at ? { verified: { at: r.verified_at.toISOString(), by: r.verified_by } } : {}),
  createdBy: r.created_by,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
})

export interface EntryFilters {
  source?: string
  category?: string
  tag?: string
  /** A folder's entries, or (null) those in no folder. */
  folderId?: string | null
  isEnabled?: boolean
  search?: string
  freshness?: string
  processingStatus?: string
  externalRefs: Record<string, string>
  /** false: items without their content and searchableText (a list of titles stays small). */
  includeContent?: boolean
}

/** Entries as they stand, or, `at` a log position, as they stood then (their history's rows current then). */
const entriesAt = (at?: number) =>
  at === undefined ? { table: 'kb_entries', then: [] } : { table: 'kb_entries_history', then: [currentAt(at, 'e')] }

/** The workspace's entries, newest first (created_at, then id), filtered and paginated; `at`: as they stood then. */
export const listEntries = async (
  db: Queryable,
  workspaceId: string,
  f: EntryFilters,
  page: number,
  limit: number,
  at?: number,
) => {
  const config = await readKbConfig(db, workspaceId)
  const { table, then } = entriesAt(at)
  const args: unknown[] = [workspaceId]
  const where = ['e.workspace_id = $1', ...then]
  const add = (sql: string, value: unknown) => (args.push(value), where.push(sql.replaceAll('?', `$${args.length}`)))
  if (f.source) add('e.source = ?', f.source)
  if (f.category) add("e.metadata->>'category' = ?", f.category)
  if (f.tag) add("e.metadata->'tags' @> jsonb_build_array(?::text)", f.tag)
  if (f.folderId) add('e.folder_id = ?', f.folderId)
  if (f.folderId === null) where.push('e.folder_id IS NULL')
  if (f.isEnabled !== undefined) add('e.is_enabled = ?', f.isEnabled)
  if (f.processingStatus) add('e.processing_status = ?', f.processingStatus)
  // The title filter is data, never a pattern: LIKE's wildcards are escaped.
  if (f.search)
    add(
      "e.title ILIKE '%' || ? || '%' ESCAPE '\\'",
      f.search.replace(/[\\%_]/g, (m) => `\\${m}`),
    )
  if (Object.keys(f.externalRefs).length) add('e.external_refs @> ?::jsonb', JSON.stringify(f.externalRefs))
  args.push(config.freshnessDays)
  const fresh = `$${args.length}`
  const freshness = FRESHNESS.replace('$FRESH', fresh)
  if (f.freshness) add(`(${freshness}) = ?`, f.freshness)
  const filter = where.join(' AND ')
  // The freshness threshold is bound in both queries, whether or not it filters.
  const total = (
    await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} e ${CITED.join} WHERE ${filter} AND ${fresh}::int > 0`,
      args,
    )
  ).rows[0].n
  const { rows } = await db.query<FreshEntryRow>(
    `SELECT e.*, ${CITED.count} AS cited_count, ${freshness} AS freshness FROM ${table} e ${CITED.join} WHERE ${filter}
     ORDER BY e.created_at DESC, e.id DESC LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    args,
  )
  const items = rows.map(entryView)
  if (f.includeContent !== false) return { items, total }
  return { items: items.map(({ content, searchableText, ...rest }) => rest), total }
}

/**
 * An entry as it stands, or, `at` a log position, as it stood then; its freshness by the workspace's
 * `freshnessDays`, read here unless the caller already holds the configuration.
 */
export const getEntry = async (db: Queryable, workspaceId: string, id: string, at?: number, freshnessDays?: number) => {
  const days = freshnessDays ?? (await readKbConfig(db, workspaceId)).freshnessDays
  const { table, then } = entriesAt(at)
  const { rows } = await db.query<FreshEntryRow>(
    `SELECT e.*, ${CITED.count} AS cited_count, ${FRESHNESS.replace('$FRESH', '$3')} AS freshness FROM ${table} e
      ${CITED.join}
      WHERE e.id = $1
      AND e.workspace_id = $2${then.map((c) => ` AND ${c}`).join('')}`,
    [id, workspaceId, days],
  )
  return rows[0] ? entryView(rows[0]) : undefined
}

/** The entry's row itself, for routes that need more than the view (sync config, tasks). */
export const entryRow = async (db: Queryable, workspaceId: string, id: string) =>
  (await db.query<EntryRow>('SELECT * FROM kb_entries WHERE id = $1 AND workspace_id = $2', [id, workspaceId]))
    .rows[0] as EntryRow | undefined

/** How many entries a workspace holds (its quota counts them). */
export const entryCount = async (db: Queryable, workspaceId: string) =>
  (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_entries WHERE workspace_id = $1', [workspaceId]))
    .rows[0].n

/** The ids of the entries in a folder. */
export const entryIdsInFolder = async (db: Queryable, workspaceId: string, folderId: string) =>
  (
    await db.query<{ id: string }>('SELECT id FROM kb_entries WHERE workspace_id = $1 AND folder_id = $2', [
      workspaceId,
      folderId,
    ])
  ).rows.map((r) => r.id)

/**
 * Entries still in a folder that was deleted: written into it while it was deleted and missed by
 * its sweep, or left there by a crash before the sweep ended. Folder and entry rows come from one
 * projector in log order, so a folder missing here was deleted, never not yet created.
 */
export const entriesInDeletedFolders = async (db: Queryable) =>
  (
    await db.query<{ id: string; workspace_id: string }>(
      `SELECT e.id, e.workspace_id FROM kb_entries e
       WHERE e.folder_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM kb_folders f WHERE f.id = e.folder_id)`,
    )
  ).rows

/** Whether an entry (other than `exceptEntryId`) holds the stored file `blob`. */
export const heldByAnEntry = async (db: Queryable, blob: string, exceptEntryId = '') =>
  (await db.query("SELECT 1 FROM kb_entries WHERE storage->>'blob' = $1 AND id <> $2 LIMIT 1", [blob, exceptEntryId]))
    .rows.length > 0

/** An entry's chunks in order, or undefined when the workspace has no such entry. */
export const entryChunks = async (db: Queryable, workspaceId: string, id: string) => {
  if (!(await entryRow(db, workspaceId, id))) return undefined
  const { rows } = await db.query<{
    chunk_index: number
    content: string
    start_offset: number
    end_offset: number
    token_count: number
    page_url: string | null
  }>(
    `SELECT chunk_index, content, start_offset, end_offset, token_count, page_url FROM kb_chunks
     WHERE entry_id = $1 AND workspace_id = $2 ORDER BY chunk_index`,
    [id, workspaceId],
  )
  return rows.map((r) => ({
    index: r.chunk_index,
    content: r.content,
    start: r.start_offset,
    end: r.end_offset,
    tokenCount: r.token_count,
    ...(r.page_url ? { pageUrl: r.page_url } : {}),
  }))
}
