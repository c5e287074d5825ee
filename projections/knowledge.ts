import type { Client, Queryable } from '../adapters/db'
import type { RecordedEvent } from '../adapters/eventstore/port'
import { searchableText } from '../adapters/text'
import type { EntryEvent } from '../domain/entry'
import type { FolderEvent } from '../domain/folder'
import { type KbConfig, type KbConfigChanged, applyChanges, defaultKbConfig } from '../domain/kbConfig'
import type { SearchServed } from '../domain/search'
import type { Projector } from './projector'

type Event = EntryEvent | FolderEvent | KbConfigChanged | SearchServed

/** Knowledge entries, folders and each workspace's configuration changes. */
export const knowledgeProjector: Projector = {
  name: 'knowledge',
  version: 2,
  tables: ['kb_entries', 'kb_folders', 'kb_configs', 'kb_searches'],
  schema: `
    CREATE TABLE kb_entries (
      id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL, content text NOT NULL, source text NOT NULL,
      metadata jsonb NOT NULL, external_refs jsonb NOT NULL, folder_id text, is_enabled boolean NOT NULL,
      token_count integer NOT NULL, searchable_text text NOT NULL, created_by text NOT NULL,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL, verified_at timestamptz, verified_by text,
      cited_count integer NOT NULL DEFAULT 0, last_sync_at timestamptz, file_bytes bigint NOT NULL DEFAULT 0);
    CREATE INDEX kb_entries_list ON kb_entries (workspace_id, created_at DESC, id DESC);
    CREATE INDEX kb_entries_folder ON kb_entries (workspace_id, folder_id);
    CREATE INDEX kb_entries_refs ON kb_entries USING gin (external_refs jsonb_path_ops);
    CREATE TABLE kb_folders (
      id text PRIMARY KEY, workspace_id text NOT NULL, name text NOT NULL, description text, color text, icon text,
      created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
    CREATE INDEX kb_folders_workspace ON kb_folders (workspace_id, created_at);
    CREATE TABLE kb_configs (workspace_id text PRIMARY KEY, config jsonb NOT NULL);
    CREATE TABLE kb_searches (position bigint PRIMARY KEY, workspace_id text NOT NULL, at timestamptz NOT NULL, entry_ids text[] NOT NULL);
    CREATE INDEX kb_searches_workspace ON kb_searches (workspace_id, at);
  `,
  handles: ['EntryCreated', 'EntryUpdated', 'EntryMoved', 'EntryVerified', 'EntryDeleted', 'FolderCreated', 'FolderUpdated', 'FolderDeleted', 'KbConfigChanged', 'SearchServed'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = { type: recorded.type, data: recorded.data } as Event
    const at = recorded.metadata.at
    switch (e.type) {
      case 'EntryCreated': {
        const d = e.data
        await tx.query(
          `INSERT INTO kb_entries (id, workspace_id, title, content, source, metadata, external_refs, folder_id, is_enabled,
             token_count, searchable_text, created_by, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13) ON CONFLICT (id) DO NOTHING`,
          [d.entryId, d.workspaceId, d.title, d.content, d.source, JSON.stringify(d.metadata), JSON.stringify(d.externalReferenceIds),
            d.folderId, d.isEnabled, d.tokenCount, searchableText(d.content), d.createdBy, at],
        )
        return
      }
      case 'EntryUpdated': {
        const c = e.data.changes
        await tx.query(
          `UPDATE kb_entries SET title = coalesce($2, title), content = coalesce($3, content),
             metadata = metadata || coalesce($4::jsonb, '{}'::jsonb), is_enabled = coalesce($5, is_enabled),
             token_count = coalesce($6, token_count), searchable_text = coalesce($7, searchable_text), updated_at = $8
           WHERE id = $1`,
          [e.data.entryId, c.title ?? null, c.content ?? null, c.metadata ? JSON.stringify(c.metadata) : null, c.isEnabled ?? null,
            c.tokenCount ?? null, c.content === undefined ? null : searchableText(c.content), at],
        )
        return
      }
      case 'EntryMoved':
        await tx.query('UPDATE kb_entries SET folder_id = $2, updated_at = $3 WHERE id = $1', [e.data.entryId, e.data.folderId, at])
        return
      case 'EntryVerified':
        await tx.query('UPDATE kb_entries SET verified_at = $2, verified_by = $3 WHERE id = $1', [e.data.entryId, e.data.at, e.data.by])
        return
      case 'EntryDeleted':
        await tx.query('DELETE FROM kb_entries WHERE id = $1', [e.data.entryId])
        return
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
          `UPDATE kb_folders SET name = coalesce($2, name), description = coalesce($3, description), color = coalesce($4, color),
             icon = coalesce($5, icon), updated_at = $6 WHERE id = $1`,
          [e.data.folderId, c.name ?? null, c.description ?? null, c.color ?? null, c.icon ?? null, at],
        )
        return
      }
      case 'FolderDeleted':
        await tx.query('DELETE FROM kb_folders WHERE id = $1', [e.data.folderId])
        return
      case 'SearchServed':
        // Counted once per search: the row keyed by position makes a replay change nothing.
        await tx.query(
          `WITH served AS (
             INSERT INTO kb_searches (position, workspace_id, at, entry_ids) VALUES ($1, $2, $3, $4)
             ON CONFLICT (position) DO NOTHING RETURNING entry_ids)
           UPDATE kb_entries SET cited_count = cited_count + 1 WHERE id = ANY((SELECT entry_ids FROM served)::text[])`,
          [recorded.position, e.data.workspaceId, at, e.data.entryIds],
        )
        return
      case 'KbConfigChanged': {
        // Merging the same changes twice gives the same config: idempotent.
        const { rows } = await tx.query<{ config: KbConfig }>('SELECT config FROM kb_configs WHERE workspace_id = $1', [e.data.workspaceId])
        const config = applyChanges(rows[0]?.config ?? defaultKbConfig(), e.data.changes)
        await tx.query(
          'INSERT INTO kb_configs (workspace_id, config) VALUES ($1, $2) ON CONFLICT (workspace_id) DO UPDATE SET config = EXCLUDED.config',
          [e.data.workspaceId, JSON.stringify(config)],
        )
        return
      }
    }
  },
}

/** A workspace's configuration as this projection holds it (the defaults until first changed). */
export const readKbConfig = async (db: Queryable, workspaceId: string): Promise<KbConfig> => {
  const { rows } = await db.query<{ config: KbConfig }>('SELECT config FROM kb_configs WHERE workspace_id = $1', [workspaceId])
  return rows[0]?.config ?? defaultKbConfig()
}
