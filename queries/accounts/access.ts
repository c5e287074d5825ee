import type { Queryable } from '../../adapters/db'
import { type Role, permissionsOf } from '../../domain/shared'

export interface Readers {
  /** Members then, with the role they held and since when they held it. */
  members: { userId: string; name: string; email: string; role: Role; since: string }[]
  /** API keys of the workspace issued by then and not yet revoked, with when they were issued. */
  apiKeys: { keyId: string; name: string; since: string }[]
  /** Accesses people had granted MCP clients by then (and not yet ended): the client, whose, what it may do. */
  grants: { grantId: string; clientName: string; userId: string; scopes: string[]; since: string }[]
}

/**
 * Who could read the workspace's knowledge at a log position: each member whose role then reads it, and each API
 * key live then. Read from the memberships' periods and the keys' positions, which the log's events build.
 */
export const readersAt = async (db: Queryable, workspaceId: string, position: number): Promise<Readers> => {
  const members = await db.query<{ user_id: string; name: string; email: string; role: Role; from_at: Date }>(
    `SELECT p.user_id, u.name, u.email, p.role, p.from_at FROM membership_periods p JOIN users u ON u.id = p.user_id
     WHERE p.workspace_id = $1 AND p.from_position <= $2 AND (p.to_position IS NULL OR p.to_position > $2)
     ORDER BY u.name, p.user_id`,
    [workspaceId, position],
  )
  const keys = await db.query<{ id: string; name: string; created_at: Date }>(
    `SELECT id, name, created_at FROM api_keys
     WHERE workspace_id = $1 AND created_position <= $2 AND (revoked_position IS NULL OR revoked_position > $2)
     ORDER BY created_position`,
    [workspaceId, position],
  )
  const grants = await db.query<{
    id: string
    client_name: string
    user_id: string
    scopes: string[]
    created_at: Date
  }>(
    `SELECT id, client_name, user_id, scopes, created_at FROM oauth_grants
     WHERE workspace_id = $1 AND created_position <= $2 AND (revoked_position IS NULL OR revoked_position > $2)
     ORDER BY created_position`,
    [workspaceId, position],
  )
  return {
    members: members.rows
      .filter((r) => permissionsOf(r.role).includes('read:knowledge'))
      .map((r) => ({ userId: r.user_id, name: r.name, email: r.email, role: r.role, since: r.from_at.toISOString() })),
    apiKeys: keys.rows.map((r) => ({ keyId: r.id, name: r.name, since: r.created_at.toISOString() })),
    grants: grants.rows.map((r) => ({
      grantId: r.id,
      clientName: r.client_name,
      userId: r.user_id,
      scopes: r.scopes,
      since: r.created_at.toISOString(),
    })),
  }
}

/** Whether the user was ever a member of the workspace (an id of another workspace's member is not found). */
export const everMember = async (db: Queryable, workspaceId: string, userId: string) =>
  (
    await db.query('SELECT 1 FROM membership_periods WHERE workspace_id = $1 AND user_id = $2 LIMIT 1', [
      workspaceId,
      userId,
    ])
  ).rows.length > 0

/** An API key of the workspace, revoked or not. */
export const workspaceKey = async (db: Queryable, workspaceId: string, keyId: string) =>
  (
    await db.query<{ id: string; name: string; revoked_at: Date | null; revoked_position: string | null }>(
      'SELECT id, name, revoked_at, revoked_position FROM api_keys WHERE workspace_id = $1 AND id = $2',
      [workspaceId, keyId],
    )
  ).rows[0]

/** What an agent's events name as its key: an API key of the workspace, or an OAuth grant in it; else undefined. */
export const agentKeyKind = async (db: Queryable, workspaceId: string, id: string) => {
  const { rows } = await db.query<{ kind: 'apiKey' | 'grant' }>(
    `SELECT 'apiKey' AS kind FROM api_keys WHERE workspace_id = $1 AND id = $2
     UNION ALL SELECT 'grant' FROM oauth_grants WHERE workspace_id = $1 AND id = $2`,
    [workspaceId, id],
  )
  return rows[0]?.kind
}

/** The workspace's API keys, newest first, revoked ones with when. */
export const keysOf = async (db: Queryable, workspaceId: string) =>
  (
    await db.query<{ id: string; name: string; created_at: Date; revoked_at: Date | null }>(
      'SELECT id, name, created_at, revoked_at FROM api_keys WHERE workspace_id = $1 ORDER BY created_position DESC',
      [workspaceId],
    )
  ).rows
