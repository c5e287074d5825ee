import { createHash, randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import { type OAuthGrantEvent, type Scope } from '../../domain/accounts/oauth'
import { type DomainError, fail } from '../../domain/shared'
import { type CommandContext, type Handled, answered } from '../handle'
import { hashSecret, newSecret } from '../secrets'
import { oauthClients, oauthGrants } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/** An authorization code lives this long; an access token this long (a refresh token until the grant is revoked). */
const CODE_SECONDS = 120
const ACCESS_SECONDS = 3600

/** PKCE's S256: the challenge a verifier answers. */
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url')

export const registerOAuthClient = async (
  store: EventStore,
  ctx: CommandContext,
  input: { name: string; redirectUris: string[] },
): Result<{ clientId: string }> => {
  const clientId = randomUUID()
  const done = await oauthClients
    .on(store, clientId)
    .handle({ type: 'RegisterOAuthClient', data: { clientId, ...input } }, ctx, { fresh: true })
  return answered({ clientId })(done)
}

export const approveOAuthGrant = async (
  store: EventStore,
  ctx: CommandContext,
  input: {
    clientId: string
    clientName: string
    userId: string
    workspaceId: string
    scopes: Scope[]
    resource: string
    redirectUri: string
    redirectUriSent: boolean
    codeChallenge: string
  },
): Result<{ grantId: string; code: string }> => {
  const grantId = randomUUID()
  const code = newSecret('kbc')
  const codeExpiresAt = new Date(Date.parse(ctx.at) + CODE_SECONDS * 1000).toISOString()
  const done = await oauthGrants
    .on(store, grantId)
    .handle(
      { type: 'ApproveOAuthGrant', data: { grantId, ...input, codeHash: hashSecret(code), codeExpiresAt } },
      { ...ctx, workspaceId: input.workspaceId },
      { fresh: true },
    )
  return answered({ grantId, code })(done)
}

/** A new access token and refresh token, and what the grant records of them (their hashes). */
const newTokens = (at: string) => {
  const access = newSecret('kbo')
  const refresh = newSecret('kbr')
  const accessExpiresAt = new Date(Date.parse(at) + ACCESS_SECONDS * 1000).toISOString()
  return {
    issued: { access_token: access, refresh_token: refresh, expires_in: ACCESS_SECONDS },
    recorded: { accessTokenHash: hashSecret(access), accessExpiresAt, refreshTokenHash: hashSecret(refresh) },
  }
}

type Issued = ReturnType<typeof newTokens>['issued']

/** Tokens issued, or the refusal of a code or refresh token presented again (the grant it belonged to ended). */
const issuedOr = (tokens: Issued, done: E.Either<DomainError, Handled<OAuthGrantEvent>>) => {
  if (E.isRight(done)) {
    const ended = done.right.events.find((e) => e.type === 'OAuthGrantRevoked')
    if (ended && ended.type === 'OAuthGrantRevoked')
      return fail('VALIDATION_ERROR', `${ended.data.reason}: the access is revoked`, [
        `invalid_grant: ${ended.data.reason}`,
      ])
  }
  return answered(tokens)(done)
}

export const redeemOAuthCode = async (
  store: EventStore,
  ctx: CommandContext,
  input: {
    grantId: string
    workspaceId: string
    code: string
    verifier: string
    clientId: string
    redirectUri?: string
    resource?: string
  },
): Result<Issued> => {
  const tokens = newTokens(ctx.at)
  const { grantId, code, verifier, workspaceId, ...rest } = input
  const done = await oauthGrants.on(store, grantId).handle(
    {
      type: 'RedeemOAuthCode',
      data: {
        grantId,
        codeHash: hashSecret(code),
        challenge: s256(verifier),
        now: ctx.at,
        tokens: tokens.recorded,
        ...rest,
      },
    },
    { ...ctx, workspaceId },
  )
  return issuedOr(tokens.issued, done)
}

export const refreshOAuthTokens = async (
  store: EventStore,
  ctx: CommandContext,
  input: { grantId: string; workspaceId: string; refreshToken: string; clientId: string; resource?: string },
): Result<Issued> => {
  const tokens = newTokens(ctx.at)
  const { grantId, refreshToken, workspaceId, ...rest } = input
  const done = await oauthGrants.on(store, grantId).handle(
    {
      type: 'RefreshOAuthTokens',
      data: { grantId, refreshTokenHash: hashSecret(refreshToken), now: ctx.at, tokens: tokens.recorded, ...rest },
    },
    { ...ctx, workspaceId },
  )
  return issuedOr(tokens.issued, done)
}

export const revokeOAuthGrant = async (
  store: EventStore,
  ctx: CommandContext,
  input: { grantId: string; workspaceId: string; reason: string },
): Result<{ revoked: true }> => {
  const done = await oauthGrants
    .on(store, input.grantId)
    .handle(
      { type: 'RevokeOAuthGrant', data: { grantId: input.grantId, revokedAt: ctx.at, reason: input.reason } },
      { ...ctx, workspaceId: input.workspaceId },
    )
  return answered({ revoked: true as const })(done)
}
