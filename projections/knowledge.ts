import * as t from 'io-ts'
import type { Client, Queryable } from '../adapters/db'
import type { RecordedEvent } from '../adapters/eventstore/port'
import { searchableText } from '../adapters/text'
import { EntryEvent } from '../domain/entry'
import { FolderEvent } from '../domain/folder'
import { type KbConfig, KbConfigChanged, applyChanges, defaultKbConfig } from '../domain/kbConfig'
import { assertNever } from '../domain/shared'
import { SearchServed } from '../domain/search'
import { TaskEvent } from '../domain/task'
import { type Projector, decodeEvent } from './projector'

const Event = t.union([EntryEvent, FolderEvent, KbConfigChanged, SearchServed, TaskEvent])
type KnowledgeEvent = t.TypeOf<typeof Event>

/** When a URL entry is next due for a sync, from the time of its last one. */
const NEXT_SYNC =
  'CASE WHEN sync_enabled THEN coalesce(last_sync_at, $2::timestamptz) + make_interval(secs => sync_interval_hours * 3600) END'

/**
 * Knowledge entries (with their processing state, which follows their task, and their URL sync
 * state), folders and each workspace's configuration changes.
 */
export const knowledgeProjector: Projector = {
  name: 'knowledge',
  version: 6,
  tables: ['kb_entries', 'kb_folders', 'kb_configs', 'kb_searches'],
  schema: `
    CREATE TABLE kb_entries (
      id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL, content text NOT NULL, source text NOT NULL,
      metadata jsonb NOT NULL, external_refs jsonb NOT NULL, folder_id text, is_enabled boolean NOT NULL,
      token_count integer NOT NULL, searchable_text text NOT NULL, created_by text NOT NULL,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, verified_at timestamptz, verified_by text,
      cited_count integer NOT NULL DEFAULT 0, last_sync_at timestamptz, file_bytes bigint NOT NULL DEFAULT 0,
      task_id text, processing_status text NOT NULL, processing_progress integer NOT NULL, storage jsonb,
        source_url text,
      sync_enabled boolean, sync_interval_hours double precision, next_sync_at timestamptz, sync_status text,
        sync_error text, sync_task_id text,
      sync_requested_at timestamptz);
    CREATE INDEX kb_entries_sync_due ON kb_entries (next_sync_at) WHERE sync_enabled;
    CREATE INDEX kb_entries_list ON kb_entries (workspace_id, created_at DESC, id DESC);
    CREATE INDEX kb_entries_folder ON kb_entries (workspace_id, folder_id);
    CREATE INDEX kb_entries_refs ON kb_entries USING gin (external_refs jsonb_path_ops);
    CREATE TABLE kb_folders (
      id text PRIMARY KEY, workspace_id text NOT NULL, name text NOT NULL, description text, color text, icon text,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
    CREATE INDEX kb_folders_workspace ON kb_folders (workspace_id, created_at);
    CREATE TABLE kb_configs (workspace_id text PRIMARY KEY, config jsonb NOT NULL,
      search_set text[] NOT NULL DEFAULT '{}');
    CREATE TABLE kb_searches (position bigint PRIMARY KEY, workspace_id text NOT NULL, at timestamptz NOT NULL,
      entry_ids text[] NOT NULL);
    CREATE INDEX kb_searches_workspace ON kb_searches (workspace_id, at);
  `,
  handles: [
    'EntryCreated',
    'EntryUpdated',
    'EntryMoved',
    'EntryVerified',
    'EntryDeleted',
    'EntryContentProcessed',
    'EntrySyncUnchanged',
    'EntryProcessingFailed',
    'EntrySyncRequested',
    'EntrySyncConfigured',
    'TaskStarted',
    'TaskProgressed',
    'TaskCompleted',
    'TaskFailed',
    'FolderCreated',
    'FolderUpdated',
    'FolderDeleted',
    'KbConfigChanged',
    'SearchServed',
  ],
  /** Searches come in runs (their citations are appended together): each run is one statement. */
  async applyEvents(tx: Client, events: RecordedEvent[]) {
    for (let i = 0; i < events.length; ) {
      let end = i
      while (end < events.length && events[end].type === 'SearchServed') end++
      if (end > i) {
        await countSearches(tx, events.slice(i, end))
        i = end
      } else await this.apply(tx, events[i++])
    }
  },
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    const at = recorded.metadata.at
    switch (e.type) {
      case 'SearchServed':
        await countSearches(tx, [recorded])
        return
      case 'KbConfigChanged':
        await applyConfig(tx, e)
        return
      case 'EntryCreated':
      case 'EntryContentProcessed':
      case 'EntrySyncUnchanged':
      case 'EntryProcessingFailed':
      case 'EntrySyncRequested':
      case 'EntrySyncConfigured':
      case 'EntryUpdated':
      case 'EntryMoved':
      case 'EntryVerified':
      case 'EntryDeleted':
        return applyEntry(tx, e, at)
      case 'TaskStarted':
      case 'TaskProgressed':
      case 'TaskCompleted':
      case 'TaskFailed':
        return applyTask(tx, e, at)
      case 'FolderCreated':
      case 'FolderUpdated':
      case 'FolderDeleted':
        return applyFolder(tx, e, at)
      // Not among `handles`: a queued task shows on its entry once it starts.
      case 'TaskQueued':
        return
      default:
        return assertNever(e)
    }
  },
}

/** An entry's row, from the entry's own events. */
const applyEntry = async (tx: Client, e: Extract<KnowledgeEvent, { type: `Entry${string}` }>, at: string) => {
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
           processing_status = CASE WHEN processing_status = 'failed' THEN 'completed' ELSE processing_status END
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
      // A failed sync keeps the old content and is tried again at the next interval.
      if (e.data.sync) {
        await tx.query(
          `UPDATE kb_entries SET sync_status = 'failed', sync_error = $3, sync_task_id = NULL,
             next_sync_at = CASE WHEN sync_enabled THEN $2::timestamptz + make_interval(secs => sync_interval_hours *
               3600) END WHERE id = $1`,
          [e.data.entryId, at, e.data.error],
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
      await tx.query(
        `UPDATE kb_entries SET title = coalesce($2, title), content = coalesce($3, content),
           metadata = metadata || coalesce($4::jsonb, '{}'::jsonb), is_enabled = coalesce($5, is_enabled),
           token_count = coalesce($6, token_count), searchable_text = coalesce($7, searchable_text), updated_at = $8
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
const applyTask = async (tx: Client, e: Extract<KnowledgeEvent, { type: `Task${string}` }>, at: string) => {
  switch (e.type) {
    // The entry's processing state follows the task that fills it (not its later syncs).
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
    case 'TaskFailed':
      await tx.query(
        `UPDATE kb_entries SET processing_status = 'failed', processing_progress = $3 WHERE id = $1 AND task_id = $2`,
        [e.data.entryId, e.data.taskId, e.data.progress],
      )
      return
  }
}

/** Folders. */
const applyFolder = async (tx: Client, e: Extract<KnowledgeEvent, { type: `Folder${string}` }>, at: string) => {
  switch (e.type) {
    case 'FolderCreated': {
      const d = e.data
      await tx.query(
        `INSERT INTO kb_folders (id, workspace_id, name, description, color, icon, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $7) ON CONFLICT (id) DO NOTHING`,
        [d.folderId, d.workspaceId, d.name, d.description ?? null, d.color ?? null, d.icon ?? null, at],
      )
      return
    }
    case 'FolderUpdated': {
      const c = e.data.changes
      await tx.query(
        `UPDATE kb_folders SET name = coalesce($2, name), description = coalesce($3, description),
          color = coalesce($4, color),
           icon = coalesce($5, icon), updated_at = $6 WHERE id = $1`,
        [e.data.folderId, c.name ?? null, c.description ?? null, c.color ?? null, c.icon ?? null, at],
      )
      return
    }
    case 'FolderDeleted':
      await tx.query('DELETE FROM kb_folders WHERE id = $1', [e.data.folderId])
      return
  }
}

/** The workspace's configuration: the changes merged into what the read model holds. */
const applyConfig = async (tx: Client, e: KbConfigChanged) => {
  // Merging the same changes twice gives the same config: idempotent.
  const { rows } = await tx.query<{ config: KbConfig }>('SELECT config FROM kb_configs WHERE workspace_id = $1', [
    e.data.workspaceId,
  ])
  const config = applyChanges(rows[0]?.config ?? defaultKbConfig(), e.data.changes)
  // Which search settings the workspace has set, even to the value they had: the search
  // endpoint follows those, and keeps its own defaults for the others.
  await tx.query(
    `INSERT INTO kb_configs (workspace_id, config, search_set) VALUES ($1, $2, $3) ON CONFLICT (workspace_id) DO UPDATE
       SET config = EXCLUDED.config,
         search_set = ARRAY(SELECT DISTINCT unnest(kb_configs.search_set || EXCLUDED.search_set) ORDER BY 1)`,
    [e.data.workspaceId, JSON.stringify(config), Object.keys(e.data.changes.search ?? {})],
  )
}

/**
 * Searches served: a row each, and one citation for each entry a search served. Counted once per
 * search: the rows keyed by position make a replay change nothing.
 */
const countSearches = (tx: Client, searches: RecordedEvent[]) => {
  const data = searches.map((r) => decodeEvent(SearchServed, r).data)
  return tx.query(
    `WITH served AS (
       INSERT INTO kb_searches (position, workspace_id, at, entry_ids)
       SELECT p, w, a, ARRAY(SELECT jsonb_array_elements_text(ids)) FROM unnest($1::bigint[], $2::text[],
         $3::timestamptz[], $4::jsonb[]) AS u(p, w, a, ids)
       ON CONFLICT (position) DO NOTHING RETURNING entry_ids),
     cited AS (SELECT id, count(*)::int AS n FROM served, unnest(entry_ids) AS id GROUP BY id)
     UPDATE kb_entries e SET cited_count = e.cited_count + cited.n FROM cited WHERE e.id = cited.id`,
    [
      searches.map((r) => r.position),
      data.map((d) => d.workspaceId),
      searches.map((r) => r.metadata.at),
      data.map((d) => JSON.stringify(d.entryIds)),
    ],
  )
}

/** A workspace's configuration as this projection holds it (the defaults until first changed). */
export const readKbConfig = async (db: Queryable, workspaceId: string): Promise<KbConfig> =>
  (await readConfigRow(db, workspaceId)).config

/** The search settings a workspace has set (a PATCH, even to the value they had). */
export const readSearchSettings = async (db: Queryable, workspaceId: string) => {
  const { config, set } = await readConfigRow(db, workspaceId)
  const chosen = <K extends keyof KbConfig['search']>(key: K) => (set.includes(key) ? config.search[key] : undefined)
  return {
    mode: chosen('defaultMode'),
    limit: chosen('defaultLimit'),
    minScore: chosen('minScore'),
    fusion: config.search.fusion,
  }
}

const readConfigRow = async (db: Queryable, workspaceId: string) => {
  const { rows } = await db.query<{ config: KbConfig; search_set: string[] }>(
    'SELECT config, search_set FROM kb_configs WHERE workspace_id = $1',
    [workspaceId],
  )
  return { config: rows[0]?.config ?? defaultKbConfig(), set: rows[0]?.search_set ?? [] }
}
