import { timingSafeEqual } from 'node:crypto'
import type { Context } from 'koa'
import { hashSecret } from '../commands/secrets'
import { apiKeyByHash, grantByAccessHash, tokenByHash } from '../queries/accounts'
import { type Permission, type Role, permissionsOf } from '../domain/shared'
import type { Deps } from './deps'
import { ApiError } from './errors'

export type Identity =
  | {
      kind: 'user'
      userId: string
      email: string
      name: string
      workspaceId: string
      workspaceName: string
      role: Role
      tokenId: string
      issuedAt: string
      expiresAt: string
    }
  | { kind: 'apiKey'; keyId: string; workspaceId: string; name: string; role: Role }
  | { kind: 'admin' }
  | { kind: 'anonymous' }

export type AuthMode = 'none' | 'bearer' | 'apiKey' | 'admin'

/** What an API key sent to a route that takes an access token is told. */
const KEYS_ARE_FOR_TOOLS =
  'API keys are for the tools endpoint (/api/v1/tools/{tool}/execute) and MCP (/mcp), sent in the x-api-key header; ' +
  "this route takes a user's access token: Authorization: Bearer <access token>"

/** `member`: the route takes a member's access token (not the admin token). */
const bearerOf = (ctx: Context, member = false) => {
  const header = ctx.get('authorization')
  if (!header && member && ctx.get('x-api-key'))
    throw new ApiError('UNAUTHORIZED', `missing Authorization header (Bearer token): ${KEYS_ARE_FOR_TOOLS}`)
  if (!header) throw new ApiError('UNAUTHORIZED', 'missing Authorization header (Bearer token)')
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) throw new ApiError('INVALID_TOKEN', 'the Authorization header must be "Bearer <token>"')
  return match[1]
}

const sameHash = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

export const authenticate = async (deps: Deps, ctx: Context, mode: AuthMode): Promise<Identity> => {
  switch (mode) {
    case 'none':
      return { kind: 'anonymous' }
    case 'admin': {
      const token = bearerOf(ctx)
      if (!sameHash(hashSecret(token), deps.adminTokenHash))
        throw new ApiError('INVALID_TOKEN', 'the admin token is not valid')
      return { kind: 'admin' }
    }
    case 'bearer': {
      const token = bearerOf(ctx, true)
      if (token.startsWith('kbk_')) throw new ApiError('INVALID_TOKEN', `this is an API key. ${KEYS_ARE_FOR_TOOLS}`)
      const hash = hashSecret(token)
      const row = await deps.credentials.get(`token:${hash}`, () => tokenByHash(deps.db.pool, hash))
      if (!row || row.revoked_at || row.expires_at.getTime() <= Date.now() || !row.role) {
        throw new ApiError('INVALID_TOKEN', 'the access token is invalid, revoked or expired')
      }
      return {
        kind: 'user',
        userId: row.user_id,
        email: row.email,
        name: row.name,
        workspaceId: row.workspace_id,
        workspaceName: row.workspace_name,
        role: row.role,
        tokenId: row.id,
        issuedAt: row.issued_at.toISOString(),
        expiresAt: row.expires_at.toISOString(),
      }
    }
    case 'apiKey': {
      const key = ctx.get('x-api-key')
      if (!key) throw new ApiError('UNAUTHORIZED', 'missing x-api-key header')
      const hash = hashSecret(key)
      const row = await deps.credentials.get(`key:${hash}`, () => apiKeyByHash(deps.db.pool, hash))
      if (!row || row.revoked_at) throw new ApiError('INVALID_TOKEN', 'the API key is invalid or revoked')
      // An API key acts for its workspace as an editor: it reads and writes knowledge and tools.
      return { kind: 'apiKey', keyId: row.id, workspaceId: row.workspace_id, name: row.name, role: 'editor' }
    }
  }
}

/**
 * Who calls /mcp: an API key (x-api-key), or an MCP client a person granted access through OAuth (Authorization:
 * Bearer, a token for `resource`). A grant acts as its key would, in its workspace, with the grant's id as its key:
 * a reader with kb:read, an editor with kb:write too, and never past the person's role there now.
 */
export const authenticateAgent = async (deps: Deps, ctx: Context, resource: string): Promise<Identity> => {
  if (ctx.get('x-api-key') || !ctx.get('authorization')) return authenticate(deps, ctx, 'apiKey')
  const token = bearerOf(ctx)
  const hash = hashSecret(token)
  const row = await deps.credentials.get(`grant:${hash}`, () => grantByAccessHash(deps.db.pool, hash))
  if (!row || row.revoked_at || row.access_expires_at.getTime() <= Date.now() || !row.role)
    throw new ApiError('INVALID_TOKEN', 'the access token is invalid, revoked or expired')
  if (row.resource !== resource) throw new ApiError('INVALID_TOKEN', `the access token is not for ${resource}`)
  const writes = row.scopes.includes('kb:write') && permissionsOf(row.role).includes('write:knowledge')
  return {
    kind: 'apiKey',
    keyId: row.id,
    workspaceId: row.workspace_id,
    name: row.client_name,
    role: writes ? 'editor' : 'viewer',
  }
}

/** The one permission check: admins pass, users and keys need the permission of their role. */
export const authorize = (identity: Identity, permission: Permission | undefined) => {
  if (!permission || identity.kind === 'admin' || identity.kind === 'anonymous') return
  if (!permissionsOf(identity.role).includes(permission)) {
    throw new ApiError('FORBIDDEN', `this requires the permission ${permission}`)
  }
}

/** The member behind a Bearer route (a bug if the route is not one). */
export const memberOf = (identity: Identity) => {
  if (identity.kind !== 'user') throw new Error('a Bearer route yields a member')
  return identity
}

/** The workspace a member or an API key acts in. */
export const workspaceIdOf = (identity: Identity) => {
  if (identity.kind !== 'user' && identity.kind !== 'apiKey') throw new Error('this route needs a workspace identity')
  return identity.workspaceId
}
