import type { Queryable } from '../../adapters/db'
import type { KbConfig } from '../../domain/knowledge/kbConfig'
import { readKbConfig } from './kbConfig'

// What a workspace's knowledge base holds, counted: its configuration's document count and its statistics.

/** The configuration with the number of documents held now. */
export const configView = async (db: Queryable, workspaceId: string, config?: KbConfig) => {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_entries WHERE workspace_id = $1', [
    workspaceId,
  ])
  return { config: { ...(config ?? (await readKbConfig(db, workspaceId))), currentDocumentCount: rows[0].n } }
}

/** Totals, and what was added, changed and searched in the last 24 hours. */
export const stats = async (db: Queryable, workspaceId: string) => {
  const q = async (sql: string) => (await db.query(sql, [workspaceId])).rows
  const [totals] =
    await q(`SELECT count(*)::int AS documents, coalesce(sum(octet_length(content) + file_bytes), 0)::bigint AS bytes,
      count(*) FILTER (WHERE created_at > now() - interval '24 hours')::int AS added,
      count(*) FILTER (WHERE updated_at > now() - interval '24 hours' AND updated_at > created_at)::int AS updated
    FROM kb_entries WHERE workspace_id = $1`)
  const [chunks] = await q('SELECT count(*)::int AS n FROM kb_chunks WHERE workspace_id = $1')
  const [searches] = await q(
    "SELECT count(*)::int AS n FROM kb_served_searches WHERE workspace_id = $1 AND at > now() - interval '24 hours'",
  )
  const bySource = await q(
    'SELECT source, count(*)::int AS n FROM kb_entries WHERE workspace_id = $1 GROUP BY source ORDER BY source',
  )
  const byFolder = await q(`SELECT NULL AS id, '(root)' AS name,
      (SELECT count(*)::int FROM kb_entries WHERE workspace_id = $1 AND folder_id IS NULL) AS n
    UNION ALL
    SELECT f.id, f.name,
      (SELECT count(*)::int FROM kb_entries e WHERE e.workspace_id = $1 AND e.folder_id = f.id) FROM kb_folders f
    WHERE f.workspace_id = $1`)
  return {
    stats: {
      totalDocuments: totals.documents,
      totalChunks: chunks.n,
      storageBytes: totals.bytes,
      bySource: Object.fromEntries(bySource.map((r) => [r.source, r.n])),
      byFolder: byFolder.map((r) => ({ folderId: r.id, name: r.name, count: r.n })),
      recentActivity: {
        documentsAdded24h: totals.added,
        documentsUpdated24h: totals.updated,
        searchesLast24h: searches.n,
      },
    },
  }
}
