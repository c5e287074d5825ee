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

/** Users, workspaces, memberships, access tokens and API keys: what authentication reads. */
export const accountsProjector: Projector = {
  name: 'accounts',
  version: 1,
  tables: ['users', 'workspaces', 'memberships', 'access_tokens', 'api_keys'],
  schema: `
    CREATE TABLE users (id text PRIMARY KEY, email text NOT NULL, name text NOT NULL, created_at timestamptz NOT NULL);
    CREATE TABLE workspaces (id text PRIMARY KEY, name text NOT NULL, slug text NOT NULL,
      created_at timestamptz NOT NULL);
    CREATE TABLE memberships (workspace_id text NOT NULL, user_id text NOT NULL, role text NOT NULL,
      PRIMARY KEY (workspace_id, user_id));
    CREATE INDEX memberships_user ON memberships (user_id);
    CREATE TABLE access_tokens (
      id text PRIMARY KEY, user_id text NOT NULL, workspace_id text NOT NULL, token_hash text NOT NULL UNIQUE,
      issued_at timestamptz NOT NULL, expires_at timestamptz NOT NULL, revoked_at timestamptz);
    CREATE TABLE api_keys (
      id text PRIMARY KEY, workspace_id text NOT NULL, name text NOT NULL, key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL, revoked_at timestamptz);
  `,
  handles: [
    'UserRegistered',
    'WorkspaceCreated',
    'MemberAdded',
    'MemberRoleChanged',
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
          'INSERT INTO api_keys (id, workspace_id, name, key_hash, created_at) VALUES ($1, $2, $3, $4, $5) ON ' +
            'CONFLICT (id) DO NOTHING',
          [e.data.keyId, e.data.workspaceId, e.data.name, e.data.keyHash, recorded.metadata.at],
        )
        return
      case 'ApiKeyRevoked':
        await tx.query('UPDATE api_keys SET revoked_at = $2 WHERE id = $1', [e.data.keyId, e.data.revokedAt])
        return
    }
  },
}
