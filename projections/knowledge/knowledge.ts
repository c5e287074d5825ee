import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { EntryEvent, fillsContent } from '../../domain/knowledge/entry'
import { FolderEvent } from '../../domain/knowledge/folder'
import { KbConfigChanged, type KbConfigChanges, mergeChanges } from '../../domain/knowledge/kbConfig'
import { assertNever } from '../../domain/shared'
import { TaskEvent } from '../../domain/knowledge/task'
import { applyEntry, applyTask } from './entryRows'
import { historyDdl, recordHistory } from '../history'
import { type Projector, decodeEvent } from '../projector'

const Event = t.union([EntryEvent, FolderEvent, KbConfigChanged, TaskEvent])
type KnowledgeEvent = t.TypeOf<typeof Event>

/**
 * Knowledge entries (with their processing state, which follows their task, and their URL sync
 * state), folders and each workspace's configuration changes. Entries keep their history (after each
 * change of their content, title, folder, metadata or state) and, once deleted, a tombstone.
 */
export const knowledgeProjector: Projector = {
  name: 'knowledge',
  version: 11,
  tables: ['kb_entries', 'kb_entries_history', 'kb_entry_tombstones', 'kb_folders', 'kb_configs'],
  schema: `
    CREATE TABLE kb_entries (
      id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL, content text NOT NULL, source text NOT NULL,
      metadata jsonb NOT NULL, external_refs jsonb NOT NULL, folder_id text, is_enabled boolean NOT NULL,
      token_count integer NOT NULL, searchable_text text NOT NULL, created_by text NOT NULL,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, verified_at timestamptz, verified_by text,
      last_sync_at timestamptz, file_bytes bigint NOT NULL DEFAULT 0,
      task_id text, processing_status text NOT NULL, processing_progress integer NOT NULL, storage jsonb,
        source_url text,
      sync_enabled boolean, sync_interval_hours double precision, next_sync_at timestamptz, sync_status text,
        sync_error text, sync_task_id text,
      sync_requested_at timestamptz, failure_reason text, failure_task_id text, failed_at timestamptz,
      first_content_revision bigint);
    ${historyDdl('kb_entries', 'id')}
    CREATE INDEX kb_entries_history_list ON kb_entries_history (workspace_id, created_at DESC, id DESC);
    CREATE TABLE kb_entry_tombstones (id text PRIMARY KEY, workspace_id text NOT NULL, title text,
      first_position bigint, deleted_position bigint NOT NULL, deleted_at timestamptz NOT NULL,
      first_content_revision bigint);
    CREATE INDEX kb_entries_sync_due ON kb_entries (next_sync_at) WHERE sync_enabled;
    CREATE INDEX kb_entries_list ON kb_entries (workspace_id, created_at DESC, id DESC);
    CREATE INDEX kb_entries_folder ON kb_entries (workspace_id, folder_id);
    CREATE INDEX kb_entries_refs ON kb_entries USING gin (external_refs jsonb_path_ops);
    CREATE TABLE kb_folders (
      id text PRIMARY KEY, workspace_id text NOT NULL, name text NOT NULL, description text, color text, icon text,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
    CREATE INDEX kb_folders_workspace ON kb_folders (workspace_id, created_at);
    CREATE TABLE kb_configs (workspace_id text PRIMARY KEY, config jsonb NOT NULL);
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
    'EntryMetadataReplaced',
    'TaskStarted',
    'TaskProgressed',
    'TaskCompleted',
    'TaskFailed',
    'FolderCreated',
    'FolderUpdated',
    'FolderDeleted',
    'KbConfigChanged',
  ],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    const at = recorded.metadata.at
    switch (e.type) {
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
      case 'EntryMetadataReplaced':
      case 'EntryMoved':
      case 'EntryVerified':
      case 'EntryDeleted':
        await applyEntry(tx, e, at)
        await firstContent(tx, e, recorded.revision)
        return entryHistory(tx, e, recorded.position, at)
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

/**
 * An entry's history, after the events that change what it says (its processing and sync state is
 * kept as it stood at those). A deletion cuts the content from the history, as from the log: what
 * remains is its tombstone, with the title the deletion recorded.
 */
const entryHistory = async (tx: Client, e: EntryEvent, position: number, at: string) => {
  switch (e.type) {
    case 'EntryCreated':
    case 'EntryUpdated':
    case 'EntryMetadataReplaced':
    case 'EntryMoved':
    case 'EntryContentProcessed':
      return recordHistory(tx, 'kb_entries', 'id', e.data.entryId, position)
    case 'EntryDeleted':
      await tx.query(
        `INSERT INTO kb_entry_tombstones (id, workspace_id, title, first_position, deleted_position, deleted_at,
           first_content_revision)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`,
        [
          e.data.entryId,
          e.data.workspaceId,
          e.data.title ?? null,
          e.data.createdPosition ?? null,
          position,
          at,
          e.data.firstContentRevision ?? null,
        ],
      )
      await tx.query('DELETE FROM kb_entries_history WHERE id = $1', [e.data.entryId])
      return
  }
}

/**
 * The revision of an entry's first content (the first event that gave it text to search): versions
 * are counted from it (queries/knowledge/versions.ts). The least revision seen is kept, so an event
 * applied again changes nothing.
 */
const firstContent = async (tx: Client, e: EntryEvent, revision: number) => {
  if (!fillsContent(e)) return
  await tx.query(
    `UPDATE kb_entries SET first_content_revision = $2 WHERE id = $1
       AND (first_content_revision IS NULL OR first_content_revision > $2)`,
    [e.data.entryId, revision],
  )
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

/**
 * The workspace's configuration changes, merged: the read model keeps what the workspace changed and
 * no default, so a read applies the defaults of the code that reads it (queries/knowledge/kbConfig.ts).
 */
const applyConfig = async (tx: Client, e: KbConfigChanged) => {
  // Merging the same changes twice gives the same changes: idempotent.
  const { rows } = await tx.query<{ config: KbConfigChanges }>(
    'SELECT config FROM kb_configs WHERE workspace_id = $1',
    [e.data.workspaceId],
  )
  await tx.query(
    `INSERT INTO kb_configs (workspace_id, config) VALUES ($1, $2) ON CONFLICT (workspace_id) DO UPDATE
       SET config = EXCLUDED.config`,
    [e.data.workspaceId, JSON.stringify(mergeChanges(rows[0]?.config ?? {}, e.data.changes))],
  )
}
