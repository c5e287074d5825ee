import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { AccessTokenEvent } from '../../domain/accounts/accessToken'
import { ApiKeyEvent } from '../../domain/accounts/apiKey'
import { MemberEvent } from '../../domain/accounts/member'
import { UserEvent } from '../../domain/accounts/user'
import { WorkspaceEvent } from '../../domain/accounts/workspace'
import { type Projector, decodeEvent } from '../projector'

const Event = t.union([UserEvent, WorkspaceEvent, MemberEvent, AccessTokenEvent, ApiKeyEvent])

/**
 * Users, workspaces, memberships, access tokens and API keys: what authentication reads. And who
 * could read a workspace when: each membership's periods (one per role held, from the log position
 * that began it to the one that ended it), and each key's positions of issue and revocation.
 */
export const accountsProjector: Projector = {
  name: 'accounts',
  version: 2,
  tables: ['users', 'workspaces', 'memberships', 'membership_periods', 'access_tokens', 'api_keys'],
  schema: `
    CREATE TABLE users (id text PRIMARY KEY, email text NOT NULL, name text NOT NULL, created_at timestamptz NOT NULL);
    CREATE TABLE workspaces (id text PRIMARY KEY, name text NOT NULL, slug text NOT NULL,
      created_at timestamptz NOT NULL);
    CREATE TABLE memberships (workspace_id text NOT NULL, user_id text NOT NULL, role text NOT NULL,
      PRIMARY KEY (workspace_id, user_id));
    CREATE INDEX memberships_user ON memberships (user_id);
    CREATE TABLE membership_periods (workspace_id text NOT NULL, user_id text NOT NULL, role text NOT NULL,
      from_position bigint NOT NULL, from_at timestamptz NOT NULL, to_position bigint, to_at timestamptz,
      PRIMARY KEY (workspace_id, user_id, from_position));
    CREATE TABLE access_tokens (
      id text PRIMARY KEY, user_id text NOT NULL, workspace_id text NOT NULL, token_hash text NOT NULL UNIQUE,
      issued_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, revoked_at timestamptz);
    CREATE TABLE api_keys (
      id text PRIMARY KEY, workspace_id text NOT NULL, name text NOT NULL, key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL, revoked_at timestamptz, created_position bigint NOT NULL,
      revoked_position bigint);
    CREATE INDEX api_keys_workspace ON api_keys (workspace_id);
  `,
  handles: [
    'UserRegistered',
    'WorkspaceCreated',
    'MemberAdded',
    'MemberRoleChanged',
    'MemberRemoved',
    'AccessTokenIssued',
    'AccessTokenRevoked',
    'ApiKeyIssued',
    'ApiKeyRevoked',
  ],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    switch (e.type) {
      case 'UserRegistered':
        await tx.query(
          'INSERT INTO users (id, email, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
          [e.data.userId, e.data.email, e.data.name, recorded.metadata.at],
        )
        return
      case 'WorkspaceCreated':
        await tx.query(
          'INSERT INTO workspaces (id, name, slug, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING',
          [e.data.workspaceId, e.data.name, e.data.slug, recorded.metadata.at],
        )
        return
      case 'MemberAdded':
      case 'MemberRoleChanged':
        await tx.query(
          `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)
           ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
          [e.data.workspaceId, e.data.userId, e.data.role],
        )
        await endPeriod(tx, e.data, recorded)
        await tx.query(
          `INSERT INTO membership_periods (workspace_id, user_id, role, from_position, from_at)
           VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
          [e.data.workspaceId, e.data.userId, e.data.role, recorded.position, recorded.metadata.at],
        )
        return
      case 'MemberRemoved':
        await tx.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [
          e.data.workspaceId,
          e.data.userId,
        ])
        await endPeriod(tx, e.data, recorded)
        // The membership's tokens end with it: added again, the user needs a new one.
        await tx.query(
          `UPDATE access_tokens SET revoked_at = $3
           WHERE workspace_id = $1 AND user_id = $2 AND revoked_at IS NULL AND issued_at <= $3`,
          [e.data.workspaceId, e.data.userId, recorded.metadata.at],
        )
        return
      case 'AccessTokenIssued':
        await tx.query(
          `INSERT INTO access_tokens (id, user_id, workspace_id, token_hash, issued_at, expires_at) VALUES ($1, $2,
            $3, $4, $5, $6)
           ON CONFLICT (id) DO NOTHING`,
          [e.data.tokenId, e.data.userId, e.data.workspaceId, e.data.tokenHash, e.data.issuedAt, e.data.expiresAt],
        )
        return
      case 'AccessTokenRevoked':
        await tx.query('UPDATE access_tokens SET revoked_at = $2 WHERE id = $1', [e.data.tokenId, e.data.revokedAt])
        return
      case 'ApiKeyIssued':
        await tx.query(
          `INSERT INTO api_keys (id, workspace_id, name, key_hash, created_at, created_position)
           VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (id) DO NOTHING`,
          [e.data.keyId, e.data.workspaceId, e.data.name, e.data.keyHash, recorded.metadata.at, recorded.position],
        )
        return
      case 'ApiKeyRevoked':
        await tx.query('UPDATE api_keys SET revoked_at = $2, revoked_position = $3 WHERE id = $1', [
          e.data.keyId,
          e.data.revokedAt,
          recorded.position,
        ])
        return
    }
  },
}

/** Ends the member's open period (one begun before this event: applying it twice changes nothing). */
const endPeriod = (tx: Client, m: { workspaceId: string; userId: string }, recorded: RecordedEvent) =>
  tx.query(
    `UPDATE membership_periods SET to_position = $3, to_at = $4
     WHERE workspace_id = $1 AND user_id = $2 AND to_position IS NULL AND from_position < $3`,
    [m.workspaceId, m.userId, recorded.position, recorded.metadata.at],
  )
