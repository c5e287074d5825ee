import type { Queryable } from '../../adapters/db'
import { defaultKbConfig } from '../../domain/knowledge/kbConfig'

/**
 * The entries whose last activity (updatedAt, verification, last sync) is older than their
 * workspace's retentionDays at `now` (0 = kept for ever).
 */
export const expiredEntries = async (db: Queryable, now: Date) =>
  (
    await db.query<{ id: string; workspace_id: string }>(
      `SELECT e.id, e.workspace_id FROM kb_entries e LEFT JOIN kb_configs c ON c.workspace_id = e.workspace_id,
         LATERAL (SELECT coalesce((c.config->>'retentionDays')::int, $2) AS days) r
       WHERE r.days > 0 AND GREATEST(e.updated_at, e.verified_at,
         e.last_sync_at) < $1::timestamptz - make_interval(days => r.days)`,
      [now.toISOString(), defaultKbConfig().retentionDays],
    )
  ).rows

/** Every deleted entry's stream and the revision of its tombstone, from the audit trail. */
export const entryTombstones = async (db: Queryable) =>
  (
    await db.query<{ stream_id: string; revision: number }>(
      "SELECT stream_id, revision FROM audit_events WHERE type = 'EntryDeleted'",
    )
  ).rows
