import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, assertNever, fail } from '../shared'

// OAuth 2.1 for remote MCP clients: a client registers itself (RFC 7591), a person grants it a scoped access to one
// workspace, and the grant's authorization code is redeemed once, with PKCE, for an access token and a refresh
// token that rotates. Only hashes of codes and tokens are recorded.

/** What a grant may do: read (search and read entries and pages), and write (pages and entries). */
export const SCOPES = ['kb:read', 'kb:write'] as const
export type Scope = (typeof SCOPES)[number]

export const OAuthClientRegistered = t.type({
  type: t.literal('OAuthClientRegistered'),
  data: t.type({ clientId: t.string, name: t.string, redirectUris: t.array(t.string) }),
})
export type OAuthClientRegistered = t.TypeOf<typeof OAuthClientRegistered>

export type OAuthClientCommand = { type: 'RegisterOAuthClient'; data: OAuthClientRegistered['data'] }
export type OAuthClientState = { registered: boolean }

export const oauthClient: Decider<OAuthClientCommand, OAuthClientRegistered, OAuthClientState> = {
  events: OAuthClientRegistered,
  initialState: () => ({ registered: false }),
  evolve: () => ({ registered: true }),
  decide: (command, state) =>
    state.registered
      ? fail('CONFLICT', `client ${command.data.clientId} is already registered`)
      : E.right([{ type: 'OAuthClientRegistered', data: command.data }]),
}

const Tokens = t.type({ accessTokenHash: t.string, accessExpiresAt: t.string, refreshTokenHash: t.string })

export const OAuthGrantApproved = t.type({
  type: t.literal('OAuthGrantApproved'),
  data: t.type({
    grantId: t.string,
    clientId: t.string,
    clientName: t.string,
    userId: t.string,
    workspaceId: t.string,
    scopes: t.array(t.string),
    resource: t.string,
    redirectUri: t.string,
    /** Whether the authorization request named the redirect URI (then the token request must name it too). */
    redirectUriSent: t.boolean,
    codeChallenge: t.string,
    codeHash: t.string,
    codeExpiresAt: t.string,
  }),
})
export type OAuthGrantApproved = t.TypeOf<typeof OAuthGrantApproved>
export const OAuthCodeRedeemed = t.type({
  type: t.literal('OAuthCodeRedeemed'),
  data: t.intersection([t.type({ grantId: t.string }), Tokens]),
})
export const OAuthTokensRefreshed = t.type({
  type: t.literal('OAuthTokensRefreshed'),
  data: t.intersection([t.type({ grantId: t.string }), Tokens]),
})
export const OAuthGrantRevoked = t.type({
  type: t.literal('OAuthGrantRevoked'),
  data: t.type({ grantId: t.string, revokedAt: t.string, reason: t.string }),
})

export const OAuthGrantEvent = t.union([OAuthGrantApproved, OAuthCodeRedeemed, OAuthTokensRefreshed, OAuthGrantRevoked])
export type OAuthGrantEvent = t.TypeOf<typeof OAuthGrantEvent>

type NewTokens = t.TypeOf<typeof Tokens>

export type OAuthGrantCommand =
  | { type: 'ApproveOAuthGrant'; data: OAuthGrantApproved['data'] }
  | {
      type: 'RedeemOAuthCode'
      data: {
        grantId: string
        codeHash: string
        /** S256 of the verifier the client sent. */
        challenge: string
        clientId: string
        redirectUri?: string
        resource?: string
        now: string
        tokens: NewTokens
      }
    }
  | {
      type: 'RefreshOAuthTokens'
      data: {
        grantId: string
        refreshTokenHash: string
        clientId: string
        resource?: string
        now: string
        tokens: NewTokens
      }
    }
  | { type: 'RevokeOAuthGrant'; data: { grantId: string; revokedAt: string; reason: string } }

export type OAuthGrantState =
  | { status: 'none' }
  | {
      status: 'approved' | 'active' | 'revoked'
      grant: OAuthGrantApproved['data']
      refreshTokenHash?: string
      /** The refresh token the last refresh replaced: presented again, it was stolen or replayed. */
      previousRefreshHash?: string
    }

/** Why a grant ends by itself: its code or a rotated refresh token was presented again. */
export const CODE_REUSED = 'the authorization code was used twice'
export const REFRESH_REUSED = 'a refresh token was used again after it was replaced'

const revoke = (grantId: string, revokedAt: string, reason: string): OAuthGrantEvent => ({
  type: 'OAuthGrantRevoked',
  data: { grantId, revokedAt, reason },
})

/** Why a code or a refresh token is refused: OAuth's invalid_grant, with the reason. */
const invalidGrant = (reason: string) => fail('VALIDATION_ERROR', reason, [`invalid_grant: ${reason}`])

export const oauthGrant: Decider<OAuthGrantCommand, OAuthGrantEvent, OAuthGrantState> = {
  events: OAuthGrantEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'OAuthGrantApproved') return { status: 'approved', grant: event.data }
    if (state.status === 'none') return state
    if (event.type === 'OAuthGrantRevoked') return { ...state, status: 'revoked' }
    return {
      ...state,
      status: 'active',
      refreshTokenHash: event.data.refreshTokenHash,
      previousRefreshHash: state.refreshTokenHash,
    }
  },
  decide: (command, state) => {
    if (command.type === 'ApproveOAuthGrant')
      return state.status === 'none'
        ? E.right([{ type: 'OAuthGrantApproved', data: command.data }])
        : fail('CONFLICT', `grant ${command.data.grantId} already exists`)
    if (state.status === 'none') return fail('NOT_FOUND', `grant ${command.data.grantId} not found`)
    const { grant } = state
    switch (command.type) {
      case 'RedeemOAuthCode': {
        const c = command.data
        if (state.status === 'revoked') return invalidGrant('the access was revoked')
        if (c.codeHash !== grant.codeHash) return invalidGrant('the authorization code is not valid')
        // A code used twice was intercepted, or replayed: the access it gave ends (RFC 6749 §4.1.2).
        if (state.status === 'active') return E.right([revoke(c.grantId, c.now, CODE_REUSED)])
        if (c.now >= grant.codeExpiresAt) return invalidGrant('the authorization code has expired')
        if (c.clientId !== grant.clientId) return invalidGrant('the code was issued to another client')
        // Named in the authorization request, the redirect URI must be named again, the same (RFC 6749 §4.1.3).
        if ((grant.redirectUriSent || c.redirectUri !== undefined) && c.redirectUri !== grant.redirectUri)
          return invalidGrant('redirect_uri differs from the authorization')
        if (c.resource !== undefined && c.resource !== grant.resource)
          return invalidGrant('resource differs from the authorization')
        if (c.challenge !== grant.codeChallenge) return invalidGrant('code_verifier does not match the code_challenge')
        return E.right([{ type: 'OAuthCodeRedeemed', data: { grantId: c.grantId, ...c.tokens } }])
      }
      case 'RefreshOAuthTokens': {
        const c = command.data
        if (state.status !== 'active') return invalidGrant('the access was revoked')
        // A rotated refresh token presented again was stolen, or replayed: the access ends (RFC 9700 §4.14.2).
        if (c.refreshTokenHash === state.previousRefreshHash) return E.right([revoke(c.grantId, c.now, REFRESH_REUSED)])
        if (c.refreshTokenHash !== state.refreshTokenHash) return invalidGrant('the refresh token is not valid')
        if (c.clientId !== grant.clientId) return invalidGrant('the refresh token was issued to another client')
        if (c.resource !== undefined && c.resource !== grant.resource)
          return invalidGrant('resource differs from the authorization')
        return E.right([{ type: 'OAuthTokensRefreshed', data: { grantId: c.grantId, ...c.tokens } }])
      }
      case 'RevokeOAuthGrant':
        return state.status === 'revoked' ? E.right([]) : E.right([{ type: 'OAuthGrantRevoked', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
