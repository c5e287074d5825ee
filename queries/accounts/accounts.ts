import type { Queryable } from '../../adapters/db'
import type { Role } from '../../domain/shared'

/** An access token with its user, workspace and the user's role there (none if no longer a member). */
export interface TokenRow {
  id: string
  user_id: string
  workspace_id: string
  issued_at: Date
  expires_at: Date
  revoked_at: Date | null
  email: string
  name: string
  workspace_name: string
  role: Role | null
}

/** The access token of a hash (tokens are stored only as their SHA-256). */
export const tokenByHash = async (db: Queryable, hash: string) =>
  (
    await db.query<TokenRow>(
      `SELECT t.id, t.user_id, t.workspace_id, t.issued_at, t.expires_at, t.revoked_at, u.email, u.name,
         w.name AS workspace_name, m.role
       FROM access_tokens t
       JOIN users u ON u.id = t.user_id
       JOIN workspaces w ON w.id = t.workspace_id
       LEFT JOIN memberships m ON m.workspace_id = t.workspace_id AND m.user_id = t.user_id
       WHERE t.token_hash = $1`,
      [hash],
    )
  ).rows[0] as TokenRow | undefined

export interface ApiKeyRow {
  id: string
  workspace_id: string
  name: string
  revoked_at: Date | null
}

/** The API key of a hash. */
export const apiKeyByHash = async (db: Queryable, hash: string) =>
  (await db.query<ApiKeyRow>('SELECT id, workspace_id, name, revoked_at FROM api_keys WHERE key_hash = $1', [hash]))
    .rows[0] as ApiKeyRow | undefined

/** A workspace's id, name and slug. */
export const workspaceById = async (db: Queryable, id: string) =>
  (
    await db.query<{ id: string; name: string; slug: string }>('SELECT id, name, slug FROM workspaces WHERE id = $1', [
      id,
    ])
  ).rows[0] as { id: string; name: string; slug: string } | undefined

/** The workspaces a user is a member of, with the role there, by name. */
export const workspacesOf = async (db: Queryable, userId: string) =>
  (
    await db.query<{ id: string; name: string; role: Role }>(
      `SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.user_id = $1 ORDER BY w.name, w.id`,
      [userId],
    )
  ).rows
