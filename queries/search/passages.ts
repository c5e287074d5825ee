import type { Queryable } from '../../adapters/db'

// What a re-embedding reads of the search index: the passages it embeds again, and the workspaces that hold any.

/** The texts of a workspace's embedded passages, each with its entry's title, in a stable order. */
export const embeddedPassages = async (db: Queryable, workspaceId: string) =>
  (
    await db.query<{ content: string; title: string; heading_path: string | null }>(
      `SELECT p.content, p.heading_path, x.title FROM kb_passages p JOIN kb_chunk_entries x ON x.entry_id = p.entry_id
       WHERE p.workspace_id = $1 AND x.embed ORDER BY p.id`,
      [workspaceId],
    )
  ).rows

/** The workspaces that hold embedded entries. */
export const workspacesWithEmbeddings = async (db: Queryable) =>
  (
    await db.query<{ workspace_id: string }>(
      'SELECT DISTINCT workspace_id FROM kb_chunk_entries WHERE embed ORDER BY 1',
    )
  ).rows.map((r) => r.workspace_id)
