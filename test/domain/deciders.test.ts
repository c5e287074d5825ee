import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { accessToken } from '../../domain/accounts/accessToken'
import { member } from '../../domain/accounts/member'
import { oauthGrant } from '../../domain/accounts/oauth'
import { reservation } from '../../domain/reservation'
import { given } from '../../testkit/spec'

const test = suite('deciders')
const reserved = { type: 'KeyReserved' as const, data: { key: 'k', ownerId: 'a', at: '2026-01-01T00:00:00.000Z' } }

test('reservation: a held key conflicts; the same owner is already satisfied', () => {
  given(reservation, [reserved])
    .when({
      type: 'Reserve',
      data: { key: 'k', ownerId: 'b', holderExists: true, at: '2026-01-02T00:00:00.000Z' },
    })
    .thenFails('CONFLICT')
  given(reservation, [reserved])
    .when({
      type: 'Reserve',
      data: { key: 'k', ownerId: 'a', holderExists: false, at: '2026-01-01T00:00:01.000Z' },
    })
    .thenNothing()
})

test('reservation: a holder that never came into being is taken over only after the grace period', () => {
  const young = given(reservation, [reserved]).when({
    type: 'Reserve',
    data: { key: 'k', ownerId: 'b', holderExists: false, at: '2026-01-01T00:00:30.000Z' },
  }).outcome
  assert.equal(young, { error: 'CONFLICT' })
  const old = given(reservation, [reserved]).when({
    type: 'Reserve',
    data: { key: 'k', ownerId: 'b', holderExists: false, at: '2026-01-01T00:02:00.000Z' },
  }).outcome
  assert.equal(old, {
    events: [{ type: 'KeyReserved', data: { key: 'k', ownerId: 'b', at: '2026-01-01T00:02:00.000Z' } }],
  })
})

test('reservation: a released key is free again', () => {
  const released = { type: 'KeyReleased' as const, data: { key: 'k', ownerId: 'a' } }
  const r = given(reservation, [reserved, released]).when({
    type: 'Reserve',
    data: { key: 'k', ownerId: 'b', holderExists: false, at: '2026-01-01T00:00:01.000Z' },
  }).outcome
  assert.is((r as { events: unknown[] }).events.length, 1)
})

test('access token: revoke twice is satisfied once; revoking an unknown token is NOT_FOUND', () => {
  const issued = {
    type: 'AccessTokenIssued' as const,
    data: { tokenId: 't', userId: 'u', workspaceId: 'w', tokenHash: 'h', issuedAt: 'x', expiresAt: 'y' },
  }
  const revoke = { type: 'RevokeAccessToken' as const, data: { tokenId: 't', revokedAt: 'z' } }
  given(accessToken, [issued])
    .when(revoke)
    .then([{ type: 'AccessTokenRevoked', data: revoke.data }])
  given(accessToken, [issued, { type: 'AccessTokenRevoked', data: revoke.data }])
    .when(revoke)
    .thenNothing()
  given(accessToken, []).when(revoke).thenFails('NOT_FOUND')
})

test('member: adding, changing the role, and setting the same role again', () => {
  const data = { workspaceId: 'w', userId: 'u', role: 'viewer' as const }
  given(member, [])
    .when({ type: 'SetMember', data })
    .then([{ type: 'MemberAdded', data }])
  given(member, [{ type: 'MemberAdded', data }])
    .when({ type: 'SetMember', data })
    .thenNothing()
  const editor = { ...data, role: 'editor' as const }
  given(member, [{ type: 'MemberAdded', data }])
    .when({ type: 'SetMember', data: editor })
    .then([{ type: 'MemberRoleChanged', data: editor }])
})

test('member: removing a member, who may be added again; removing one who is not a member fails', () => {
  const data = { workspaceId: 'w', userId: 'u', role: 'viewer' as const }
  const who = { workspaceId: 'w', userId: 'u' }
  given(member, [{ type: 'MemberAdded', data }])
    .when({ type: 'RemoveMember', data: who })
    .then([{ type: 'MemberRemoved', data: who }])
  given(member, [
    { type: 'MemberAdded', data },
    { type: 'MemberRemoved', data: who },
  ])
    .when({ type: 'RemoveMember', data: who })
    .thenFails('NOT_FOUND')
  given(member, []).when({ type: 'RemoveMember', data: who }).thenFails('NOT_FOUND')
  given(member, [
    { type: 'MemberAdded', data },
    { type: 'MemberRemoved', data: who },
  ])
    .when({ type: 'SetMember', data })
    .then([{ type: 'MemberAdded', data }])
})

test('OAuth grant: a code is redeemed once, in time, by its client with its verifier; refreshes rotate', () => {
  const approved = {
    grantId: 'g',
    clientId: 'c',
    clientName: 'Claude',
    userId: 'u',
    workspaceId: 'w',
    scopes: ['kb:read'],
    resource: 'http://kb/mcp',
    redirectUri: 'http://127.0.0.1/cb',
    redirectUriSent: true,
    codeChallenge: 'challenge',
    codeHash: 'code-hash',
    codeExpiresAt: '2026-01-01T00:02:00.000Z',
  }
  const tokens = { accessTokenHash: 'a1', accessExpiresAt: '2026-01-01T01:00:00.000Z', refreshTokenHash: 'r1' }
  const redeem = {
    grantId: 'g',
    codeHash: 'code-hash',
    challenge: 'challenge',
    clientId: 'c',
    redirectUri: 'http://127.0.0.1/cb',
    now: '2026-01-01T00:01:00.000Z',
    tokens,
  }
  const given0 = [{ type: 'OAuthGrantApproved' as const, data: approved }]
  given(oauthGrant, given0)
    .when({ type: 'RedeemOAuthCode', data: redeem })
    .then([{ type: 'OAuthCodeRedeemed', data: { grantId: 'g', ...tokens } }])
  for (const wrong of [
    { challenge: 'other' },
    { now: '2026-01-01T00:02:00.000Z' },
    { clientId: 'd' },
    { redirectUri: 'http://127.0.0.1/other' },
    { redirectUri: undefined },
    { resource: 'http://elsewhere/mcp' },
  ])
    given(oauthGrant, given0)
      .when({ type: 'RedeemOAuthCode', data: { ...redeem, ...wrong } })
      .thenFails('VALIDATION_ERROR')
  const redeemed = [...given0, { type: 'OAuthCodeRedeemed' as const, data: { grantId: 'g', ...tokens } }]
  // A code presented again ends the access it gave.
  const ended = (reason: string) => [
    { type: 'OAuthGrantRevoked' as const, data: { grantId: 'g', revokedAt: redeem.now, reason } },
  ]
  given(oauthGrant, redeemed)
    .when({ type: 'RedeemOAuthCode', data: redeem })
    .then(ended('the authorization code was used twice'))
  const next = { accessTokenHash: 'a2', accessExpiresAt: '2026-01-01T02:00:00.000Z', refreshTokenHash: 'r2' }
  const refresh = { grantId: 'g', refreshTokenHash: 'r1', clientId: 'c', now: redeem.now, tokens: next }
  given(oauthGrant, redeemed)
    .when({ type: 'RefreshOAuthTokens', data: refresh })
    .then([{ type: 'OAuthTokensRefreshed', data: { grantId: 'g', ...next } }])
  const rotated = [...redeemed, { type: 'OAuthTokensRefreshed' as const, data: { grantId: 'g', ...next } }]
  // A rotated refresh token presented again ends the access; an unknown one is refused.
  given(oauthGrant, rotated)
    .when({ type: 'RefreshOAuthTokens', data: refresh })
    .then(ended('a refresh token was used again after it was replaced'))
  given(oauthGrant, rotated)
    .when({ type: 'RefreshOAuthTokens', data: { ...refresh, refreshTokenHash: 'r0' } })
    .thenFails('VALIDATION_ERROR')
  const revoked = [
    ...rotated,
    { type: 'OAuthGrantRevoked' as const, data: { grantId: 'g', revokedAt: 'x', reason: 'y' } },
  ]
  given(oauthGrant, revoked)
    .when({ type: 'RefreshOAuthTokens', data: { ...refresh, refreshTokenHash: 'r2' } })
    .thenFails('VALIDATION_ERROR')
})

test.run()
