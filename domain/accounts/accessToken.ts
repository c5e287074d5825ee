import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail, assertNever } from '../shared'

// Only the SHA-256 hash of a token is ever recorded; the token itself is shown once.
export const AccessTokenIssued = t.type({
  type: t.literal('AccessTokenIssued'),
  data: t.type({
    tokenId: t.string,
    userId: t.string,
    workspaceId: t.string,
    tokenHash: t.string,
    issuedAt: t.string,
    expiresAt: t.string,
  }),
})
export type AccessTokenIssued = t.TypeOf<typeof AccessTokenIssued>
export const AccessTokenRevoked = t.type({
  type: t.literal('AccessTokenRevoked'),
  data: t.type({ tokenId: t.string, revokedAt: t.string }),
})
export type AccessTokenRevoked = t.TypeOf<typeof AccessTokenRevoked>

export const AccessTokenEvent = t.union([AccessTokenIssued, AccessTokenRevoked])
export type AccessTokenEvent = t.TypeOf<typeof AccessTokenEvent>

export type AccessTokenCommand =
  | { type: 'IssueAccessToken'; data: AccessTokenIssued['data'] }
  | { type: 'RevokeAccessToken'; data: { tokenId: string; revokedAt: string } }

export type AccessTokenState = { status: 'none' } | { status: 'active' | 'revoked'; workspaceId: string }

export const accessToken: Decider<AccessTokenCommand, AccessTokenEvent, AccessTokenState> = {
  events: AccessTokenEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) =>
    event.type === 'AccessTokenIssued'
      ? { status: 'active', workspaceId: event.data.workspaceId }
      : state.status === 'none'
        ? state
        : { ...state, status: 'revoked' },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueAccessToken':
        if (state.status !== 'none') return fail('CONFLICT', `token ${command.data.tokenId} already issued`)
        return E.right([{ type: 'AccessTokenIssued', data: command.data }])
      case 'RevokeAccessToken':
        if (state.status === 'none') return fail('NOT_FOUND', `token ${command.data.tokenId} not found`)
        if (state.status === 'revoked') return E.right([])
        return E.right([{ type: 'AccessTokenRevoked', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
