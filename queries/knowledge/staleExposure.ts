import type { Queryable } from '../../adapters/db'
import { pagination } from '../pagination'
import { entryVersion } from './versions'

interface Row {
  kind: 'knowledge' | 'pages'
  item_id: string
  title: string | null
  status: 'changed' | 'deleted'
  changed_at: Date | null
  current_version: number | null
  receipt_id: string
  served_at: Date
  actor: unknown
  version: number
  first_content_revision: number | null
}

/** Serves looked at at most (the latest): a report reaching further back is cut there. */
const MAX_SERVES = 20_000

/**
 * Each entry or page served since `since` whose served text has changed or was deleted since: who
 * was served it (user, or agent client), when, by which receipt and which version, and what changed
 * (its version now, or deleted, and when). Grouped by entry or page, newest change first.
 */
export const staleExposure = async (db: Queryable, workspaceId: string, since: Date, page: number, limit: number) => {
  const { rows } = await db.query<Row>(
    `WITH served AS (
       SELECT r.kind, x.item_id, x.version, x.chunk_index, x.sha256, coalesce(r.token, r.id) AS receipt_id,
         r.at AS served_at, r.actor,
         r.position
       FROM kb_receipt_results x JOIN kb_receipts r ON r.id = x.receipt_id
       WHERE x.workspace_id = $1 AND x.at >= $2 ORDER BY x.at DESC LIMIT ${MAX_SERVES}),
     judged AS (
       SELECT s.*, coalesce(e.title, p.title) AS title,
         CASE WHEN s.kind = 'knowledge' THEN
           CASE WHEN e.id IS NULL THEN 'deleted'
             WHEN c.content IS NULL OR encode(sha256(convert_to(c.content, 'UTF8')), 'hex') <> s.sha256 THEN 'changed'
           END
         ELSE CASE WHEN p.id IS NULL THEN 'deleted' WHEN p.version <> s.version THEN 'changed' END
         END AS status,
         CASE WHEN s.kind = 'knowledge' THEN (SELECT max(revision) FROM kb_chunks WHERE entry_id = s.item_id)
           ELSE p.version END AS current_version,
         coalesce(e.first_content_revision, t.first_content_revision) AS first_content_revision
       FROM served s
       LEFT JOIN kb_entries e ON s.kind = 'knowledge' AND e.id = s.item_id
       LEFT JOIN kb_entry_tombstones t ON s.kind = 'knowledge' AND t.id = s.item_id
       LEFT JOIN kb_chunks c ON s.kind = 'knowledge' AND c.entry_id = s.item_id AND c.chunk_index = s.chunk_index
       LEFT JOIN kb_pages p ON s.kind = 'pages' AND p.id = s.item_id)
     SELECT j.kind, j.item_id, j.title, j.status, j.current_version, j.receipt_id, j.served_at, j.actor, j.version,
       j.first_content_revision,
       (SELECT max(a.time) FROM audit_events a WHERE a.workspace_id = $1 AND a.position > j.position
          AND a.stream_id = (CASE WHEN j.kind = 'knowledge' THEN 'entry-' ELSE 'page-' END) || j.item_id
          AND a.type IN ('EntryUpdated', 'EntryContentProcessed', 'EntryDeleted', 'PageVersionWritten', 'PageDeleted'))
         AS changed_at
     FROM judged j WHERE j.status IS NOT NULL`,
    [workspaceId, since],
  )
  const groups = new Map<string, { item: Record<string, unknown>; changedAt: number; servedTo: unknown[] }>()
  for (const r of rows) {
    const key = `${r.kind}:${r.item_id}`
    // An entry's served and current versions are its revisions as the log counts them, shown from 1.
    const shown = (v: number) => (r.kind === 'knowledge' ? entryVersion(v, r.first_content_revision) : Number(v))
    let g = groups.get(key)
    if (!g) {
      g = {
        item: {
          ...(r.kind === 'knowledge' ? { entryId: r.item_id } : { pageId: r.item_id }),
          ...(r.title ? { title: r.title } : {}),
          status: r.status,
          ...(r.current_version !== null ? { currentVersion: shown(r.current_version) } : {}),
          changedAt: r.changed_at?.toISOString() ?? null,
        },
        changedAt: r.changed_at?.getTime() ?? 0,
        servedTo: [],
      }
      groups.set(key, g)
    }
    g.servedTo.push({
      receiptId: r.receipt_id,
      at: r.served_at.toISOString(),
      actor: r.actor,
      version: shown(r.version),
    })
  }
  const sorted = [...groups.values()].sort((a, b) => b.changedAt - a.changedAt)
  return {
    items: sorted.slice((page - 1) * limit, page * limit).map((g) => ({ ...g.item, servedTo: g.servedTo })),
    pagination: pagination(page, limit, sorted.length),
  }
}
