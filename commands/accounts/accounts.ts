import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import { type DomainError, type Role, fail } from '../../domain/shared'
import { type CommandContext, answered } from '../handle'
import { reserve } from '../reservations'
import { hashSecret, newSecret } from '../secrets'
import { accessTokens, apiKeys, members, users, workspaces } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

const exists = async (store: EventStore, streamId: string) => (await store.streamRevision(streamId)) !== 'no_stream'

/** Whether a workspace was ever created. */
export const workspaceExists = (store: EventStore, workspaceId: string) => exists(store, workspaces.stream(workspaceId))

export const slugify = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'workspace'

export const registerUser = async (
  store: EventStore,
  ctx: CommandContext,
  input: { email: string; name: string },
): Result<{ id: string; email: string; name: string }> => {
  const id = randomUUID()
  const email = input.email.trim().toLowerCase()
  const reserved = await reserve(store, ctx, 'user-email', email, id, users.stream)
  if (E.isLeft(reserved)) return fail('CONFLICT', `a user with email ${email} already exists`)
  const done = await users
    .on(store, id)
    .handle({ type: 'RegisterUser', data: { userId: id, email, name: input.name } }, ctx)
  return answered({ id, email, name: input.name })(done)
}

export const createWorkspace = async (
  store: EventStore,
  ctx: CommandContext,
  input: { name: string; slug?: string },
): Result<{ id: string; name: string; slug: string }> => {
  const id = randomUUID()
  const slug = input.slug ?? slugify(input.name)
  const reserved = await reserve(store, ctx, 'workspace-slug', slug, id, workspaces.stream)
  if (E.isLeft(reserved)) return fail('CONFLICT', `the workspace slug ${slug} is taken`, [`slug: ${slug} is taken`])
  const done = await workspaces
    .on(store, id)
    .handle({ type: 'CreateWorkspace', data: { workspaceId: id, name: input.name, slug } }, { ...ctx, workspaceId: id })
  return answered({ id, name: input.name, slug })(done)
}

export const setMember = async (
  store: EventStore,
  ctx: CommandContext,
  input: { workspaceId: string; userId: string; role: Role },
): Result<{ workspaceId: string; userId: string; role: Role }> => {
  if (!(await workspaceExists(store, input.workspaceId)))
    return fail('NOT_FOUND', `workspace ${input.workspaceId} not found`)
  if (!(await exists(store, users.stream(input.userId)))) return fail('NOT_FOUND', `user ${input.userId} not found`)
  const done = await members
    .on(store, input.workspaceId, input.userId)
    .handle({ type: 'SetMember', data: input }, { ...ctx, workspaceId: input.workspaceId })
  return answered({ ...input })(done)
}

/**
 * Ends a membership: the user's tokens for the workspace, and the accesses they granted MCP clients, end with it
 * (the read models end them on this event); API keys belong to the workspace, not to a member, and stay. Who could
 * read what before stays in the log.
 */
export const removeMember = async (
  store: EventStore,
  ctx: CommandContext,
  input: { workspaceId: string; userId: string },
): Result<{ workspaceId: string; userId: string; removed: true }> => {
  if (!(await workspaceExists(store, input.workspaceId)))
    return fail('NOT_FOUND', `workspace ${input.workspaceId} not found`)
  const done = await members
    .on(store, input.workspaceId, input.userId)
    .handle({ type: 'RemoveMember', data: input }, { ...ctx, workspaceId: input.workspaceId })
  return answered({ ...input, removed: true as const })(done)
}

/** The member's role, or null; read from the member stream, not a read model. */
export const roleOf = async (store: EventStore, workspaceId: string, userId: string) =>
  (await members.on(store, workspaceId, userId).load()).state.role

export const issueAccessToken = async (
  store: EventStore,
  ctx: CommandContext,
  input: { userId: string; workspaceId: string; ttlSeconds: number },
): Result<{ id: string; access_token: string; issued_at: string; expires_at: string }> => {
  if (!(await exists(store, users.stream(input.userId)))) return fail('NOT_FOUND', `user ${input.userId} not found`)
  if (!(await workspaceExists(store, input.workspaceId)))
    return fail('NOT_FOUND', `workspace ${input.workspaceId} not found`)
  if ((await roleOf(store, input.workspaceId, input.userId)) === null) {
    return fail('VALIDATION_ERROR', 'the user is not a member of the workspace', [
      'userId: not a member of the workspace',
    ])
  }
  const id = randomUUID()
  const token = newSecret('kbt')
  const issuedAt = ctx.at
  const expiresAt = new Date(Date.parse(ctx.at) + input.ttlSeconds * 1000).toISOString()
  const data = {
    tokenId: id,
    userId: input.userId,
    workspaceId: input.workspaceId,
    tokenHash: hashSecret(token),
    issuedAt,
    expiresAt,
  }
  const done = await accessTokens
    .on(store, id)
    .handle({ type: 'IssueAccessToken', data }, { ...ctx, workspaceId: input.workspaceId })
  return answered({ id, access_token: token, issued_at: issuedAt, expires_at: expiresAt })(done)
}

/** The workspace a token or key belongs to, so that its revocation is in that workspace's audit trail. */
const inWorkspaceOf = (ctx: CommandContext, state: { status: string; workspaceId?: string }): CommandContext =>
  state.workspaceId ? { ...ctx, workspaceId: state.workspaceId } : ctx

export const revokeAccessToken = async (
  store: EventStore,
  ctx: CommandContext,
  tokenId: string,
): Result<{ revoked: true }> => {
  const { state } = await accessTokens.on(store, tokenId).load()
  const done = await accessTokens
    .on(store, tokenId)
    .handle({ type: 'RevokeAccessToken', data: { tokenId, revokedAt: ctx.at } }, inWorkspaceOf(ctx, state))
  return answered({ revoked: true as const })(done)
}

export const issueApiKey = async (
  store: EventStore,
  ctx: CommandContext,
  input: { workspaceId: string; name: string },
): Result<{ id: string; api_key: string }> => {
  if (!(await workspaceExists(store, input.workspaceId)))
    return fail('NOT_FOUND', `workspace ${input.workspaceId} not found`)
  const id = randomUUID()
  const key = newSecret('kbk')
  const data = { keyId: id, workspaceId: input.workspaceId, name: input.name, keyHash: hashSecret(key) }
  const done = await apiKeys
    .on(store, id)
    .handle({ type: 'IssueApiKey', data }, { ...ctx, workspaceId: input.workspaceId })
  return answered({ id, api_key: key })(done)
}

export const revokeApiKey = async (
  store: EventStore,
  ctx: CommandContext,
  keyId: string,
): Result<{ revoked: true }> => {
  const { state } = await apiKeys.on(store, keyId).load()
  const done = await apiKeys
    .on(store, keyId)
    .handle({ type: 'RevokeApiKey', data: { keyId, revokedAt: ctx.at } }, inWorkspaceOf(ctx, state))
  return answered({ revoked: true as const })(done)
}
