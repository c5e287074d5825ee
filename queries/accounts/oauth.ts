import type { Queryable } from '../../adapters/db'
import type { Role } from '../../domain/shared'

export interface OAuthClientRow {
  id: string
  name: string
  redirect_uris: string[]
}

/** A registered OAuth client. */
export const oauthClientById = async (db: Queryable, id: string) =>
  (await db.query<OAuthClientRow>('SELECT id, name, redirect_uris FROM oauth_clients WHERE id = $1', [id])).rows[0] as
    | OAuthClientRow
    | undefined

export interface GrantSecretRow {
  id: string
  workspace_id: string
  user_id: string
  scopes: string[]
  revoked_at: Date | null
}

/**
 * The grant an authorization code or a refresh token belongs to (found by the hash only they hold): a refresh token
 * the last refresh replaced finds its grant too, so that presenting it again ends the grant.
 */
export const grantBySecret = async (db: Queryable, kind: 'code' | 'refresh', hash: string) =>
  (
    await db.query<GrantSecretRow>(
      `SELECT id, workspace_id, user_id, scopes, revoked_at FROM oauth_grants
       WHERE ${kind === 'code' ? 'code_hash = $1' : '(refresh_hash = $1 OR previous_refresh_hash = $1)'}`,
      [hash],
    )
  ).rows[0] as GrantSecretRow | undefined

export interface GrantAccessRow {
  id: string
  client_name: string
  user_id: string
  workspace_id: string
  scopes: string[]
  resource: string
  access_expires_at: Date
  revoked_at: Date | null
  /** The person's role in the workspace now (null: no longer a member). */
  role: Role | null
}

/** The grant of an access token, with the role its person holds in the workspace now. */
export const grantByAccessHash = async (db: Queryable, hash: string) =>
  (
    await db.query<GrantAccessRow>(
      `SELECT g.id, g.client_name, g.user_id, g.workspace_id, g.scopes, g.resource, g.access_expires_at, g.revoked_at,
         m.role
       FROM oauth_grants g LEFT JOIN memberships m ON m.workspace_id = g.workspace_id AND m.user_id = g.user_id
       WHERE g.access_hash = $1`,
      [hash],
    )
  ).rows[0] as GrantAccessRow | undefined

export interface GrantRow {
  id: string
  client_id: string
  client_name: string
  user_id: string
  user_name: string
  workspace_id: string
  scopes: string[]
  created_at: Date
  refreshed_at: Date | null
  revoked_at: Date | null
  redeemed: boolean
}

/** The workspace's grants (one person's, with `userId`), newest first. */
export const grantsOf = async (db: Queryable, workspaceId: string, userId?: string) =>
  (
    await db.query<GrantRow>(
      `SELECT g.id, g.client_id, g.client_name, g.user_id, u.name AS user_name, g.workspace_id, g.scopes, g.created_at,
         g.refreshed_at, g.revoked_at, g.access_hash IS NOT NULL AS redeemed
       FROM oauth_grants g JOIN users u ON u.id = g.user_id
       WHERE g.workspace_id = $1 AND ($2::text IS NULL OR g.user_id = $2) ORDER BY g.created_at DESC, g.id`,
      [workspaceId, userId ?? null],
    )
  ).rows

/** One grant of the workspace. */
export const grantById = async (db: Queryable, workspaceId: string, id: string) =>
  (await db.query<GrantRow>('SELECT * FROM oauth_grants WHERE workspace_id = $1 AND id = $2', [workspaceId, id]))
    .rows[0] as Pick<GrantRow, 'id' | 'user_id' | 'revoked_at'> | undefined
