// Folders as the API shows them, with the number of entries in each.
import type { Queryable } from '../../adapters/db'

/** A row of kb_folders, with the number of entries in the folder. */
export interface FolderRow {
  id: string
  workspace_id: string
  name: string
  description: string | null
  color: string | null
  icon: string | null
  created_at: Date
  updated_at: Date
  document_count: number
}

export const folderView = (r: FolderRow) => ({
  id: r.id,
  workspaceId: r.workspace_id,
  name: r.name,
  ...(r.description !== null ? { description: r.description } : {}),
  ...(r.color !== null ? { color: r.color } : {}),
  ...(r.icon !== null ? { icon: r.icon } : {}),
  documentCount: r.document_count,
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
})

const FOLDERS = `SELECT f.*,
  (SELECT count(*)::int FROM kb_entries e WHERE e.workspace_id = f.workspace_id
AND e.folder_id = f.id) AS document_count
  FROM kb_folders f WHERE f.workspace_id = $1`

export const listFolders = async (db: Queryable, workspaceId: string) =>
  (await db.query<FolderRow>(`${FOLDERS} ORDER BY f.created_at, f.id`, [workspaceId])).rows.map(folderView)

export const getFolder = async (db: Queryable, workspaceId: string, id: string) => {
  const { rows } = await db.query<FolderRow>(`${FOLDERS} AND f.id = $2`, [workspaceId, id])
  return rows[0] ? folderView(rows[0]) : undefined
}
