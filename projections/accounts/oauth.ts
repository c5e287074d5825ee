import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { MemberRemoved } from '../../domain/accounts/member'
import { OAuthClientRegistered, OAuthGrantEvent } from '../../domain/accounts/oauth'
import { type Projector, decodeEvent } from '../projector'

const Event = t.union([OAuthClientRegistered, OAuthGrantEvent, MemberRemoved])

/**
 * OAuth clients and the grants people gave them: what the token endpoint and /mcp read (a code, an access token or
 * a refresh token found by its hash, the one a refresh replaced too), what the console lists, and, by log position,
 * when each grant began and ended (who could read the workspace when). A grant ends when revoked, or when its
 * person is removed from the workspace: added again, they grant anew.
 */
export const oauthProjector: Projector = {
  name: 'oauth',
  version: 1,
  tables: ['oauth_clients', 'oauth_grants'],
  schema: `
    CREATE TABLE oauth_clients (id text PRIMARY KEY, name text NOT NULL, redirect_uris jsonb NOT NULL,
      created_at timestamptz NOT NULL);
    CREATE TABLE oauth_grants (
      id text PRIMARY KEY, client_id text NOT NULL, client_name text NOT NULL, user_id text NOT NULL,
      workspace_id text NOT NULL, scopes text[] NOT NULL, resource text NOT NULL, redirect_uri text NOT NULL,
      code_hash text NOT NULL UNIQUE, access_hash text UNIQUE, access_expires_at timestamptz,
      refresh_hash text UNIQUE, previous_refresh_hash text UNIQUE, created_at timestamptz NOT NULL,
      created_position bigint NOT NULL, refreshed_at timestamptz, revoked_at timestamptz, revoked_position bigint);
    CREATE INDEX oauth_grants_workspace ON oauth_grants (workspace_id, created_at);
  `,
  handles: [
    'MemberRemoved',
    'OAuthClientRegistered',
    'OAuthGrantApproved',
    'OAuthCodeRedeemed',
    'OAuthTokensRefreshed',
    'OAuthGrantRevoked',
  ],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    const at = recorded.metadata.at
    switch (e.type) {
      case 'OAuthClientRegistered':
        await tx.query(
          `INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO NOTHING`,
          [e.data.clientId, e.data.name, JSON.stringify(e.data.redirectUris), at],
        )
        return
      case 'OAuthGrantApproved': {
        const d = e.data
        await tx.query(
          `INSERT INTO oauth_grants (id, client_id, client_name, user_id, workspace_id, scopes, resource, redirect_uri,
             code_hash, created_at, created_position)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
          [
            d.grantId,
            d.clientId,
            d.clientName,
            d.userId,
            d.workspaceId,
            d.scopes,
            d.resource,
            d.redirectUri,
            d.codeHash,
            at,
            recorded.position,
          ],
        )
        return
      }
      case 'OAuthCodeRedeemed':
      case 'OAuthTokensRefreshed':
        await tx.query(
          `UPDATE oauth_grants SET access_hash = $2, access_expires_at = $3, refresh_hash = $4,
             previous_refresh_hash = CASE WHEN refresh_hash = $4 THEN previous_refresh_hash ELSE refresh_hash END,
             refreshed_at = CASE WHEN $5 THEN $6::timestamptz ELSE refreshed_at END
           WHERE id = $1`,
          [
            e.data.grantId,
            e.data.accessTokenHash,
            e.data.accessExpiresAt,
            e.data.refreshTokenHash,
            e.type === 'OAuthTokensRefreshed',
            at,
          ],
        )
        return
      case 'OAuthGrantRevoked':
        await tx.query(
          'UPDATE oauth_grants SET revoked_at = $2, revoked_position = $3 WHERE id = $1 AND revoked_at IS NULL',
          [e.data.grantId, e.data.revokedAt, recorded.position],
        )
        return
      case 'MemberRemoved':
        await tx.query(
          `UPDATE oauth_grants SET revoked_at = $3, revoked_position = $4
           WHERE workspace_id = $1 AND user_id = $2 AND revoked_at IS NULL AND created_position < $4`,
          [e.data.workspaceId, e.data.userId, at, recorded.position],
        )
        return
    }
  },
}
