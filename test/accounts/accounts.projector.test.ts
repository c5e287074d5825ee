import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { accountsProjector, oauthProjector } from '../../projections/accounts'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: accounts (memberships over time, keys, tokens) and OAuth grants')
const accounts = projectorSpec(accountsProjector)
const oauth = projectorSpec(oauthProjector)

const at = (position: number) => ({ position })
const member = (role: string) => ({ workspaceId: 'ws-1', userId: 'user-2', role })
const setup = [
  { type: 'UserRegistered', data: { userId: 'user-2', email: 'b@example.com', name: 'B' }, ...at(1) },
  { type: 'WorkspaceCreated', data: { workspaceId: 'ws-1', name: 'W', slug: 'w' }, ...at(2) },
]
const token = {
  type: 'AccessTokenIssued',
  data: {
    tokenId: 'token-1',
    userId: 'user-2',
    workspaceId: 'ws-1',
    tokenHash: 'h1',
    issuedAt: '2026-01-01T00:00:03.000Z',
    expiresAt: '2027-01-01T00:00:00.000Z',
  },
}

test('a membership keeps a period per role, ended by a change or a removal, which also ends its tokens', () =>
  accounts
    .given([
      ...setup,
      { type: 'MemberAdded', data: member('viewer'), ...at(3) },
      { ...token, ...at(4) },
      { type: 'MemberRoleChanged', data: member('editor'), ...at(5) },
      { type: 'MemberRemoved', data: { workspaceId: 'ws-1', userId: 'user-2' }, ...at(6) },
      { type: 'MemberAdded', data: member('viewer'), ...at(7) },
    ])
    .then((rows) => {
      assert.equal(
        rows.membership_periods
          .map((p) => [p.role, Number(p.from_position), p.to_position && Number(p.to_position)])
          .sort((a, b) => (a[1] as number) - (b[1] as number)),
        [
          ['viewer', 3, 5],
          ['editor', 5, 6],
          ['viewer', 7, null],
        ],
      )
      assert.equal(
        rows.memberships.map((m) => m.role),
        ['viewer'],
      )
      // The token issued before the removal stays revoked after the user is added again.
      assert.ok(rows.access_tokens[0].revoked_at)
    }))

test('API keys keep the positions of their issue and revocation', () =>
  accounts
    .given([
      ...setup,
      { type: 'ApiKeyIssued', data: { keyId: 'key-1', workspaceId: 'ws-1', name: 'bot', keyHash: 'k' }, ...at(3) },
      { type: 'ApiKeyRevoked', data: { keyId: 'key-1', revokedAt: '2026-01-01T00:00:04.000Z' }, ...at(4) },
    ])
    .then((rows) => {
      const [key] = rows.api_keys
      assert.equal([Number(key.created_position), Number(key.revoked_position)], [3, 4])
    }))

const approved = {
  grantId: 'grant-1',
  clientId: 'client-1',
  clientName: 'Claude',
  userId: 'user-2',
  workspaceId: 'ws-1',
  scopes: ['kb:read', 'kb:write'],
  resource: 'http://kb/mcp',
  redirectUri: 'http://127.0.0.1/cb',
  redirectUriSent: true,
  codeChallenge: 'c',
  codeHash: 'code',
  codeExpiresAt: '2026-01-01T00:02:00.000Z',
}
const tokens = (n: number) => ({
  grantId: 'grant-1',
  accessTokenHash: `a${n}`,
  accessExpiresAt: '2026-01-01T01:00:00.000Z',
  refreshTokenHash: `r${n}`,
})

test('a grant holds its latest tokens’ hashes, when it was refreshed, and its revocation', () =>
  oauth
    .given([
      { type: 'OAuthClientRegistered', data: { clientId: 'client-1', name: 'Claude', redirectUris: ['x'] } },
      { type: 'OAuthGrantApproved', data: approved },
      { type: 'OAuthCodeRedeemed', data: tokens(1) },
      { type: 'OAuthTokensRefreshed', data: tokens(2) },
      { type: 'OAuthGrantRevoked', data: { grantId: 'grant-1', revokedAt: '2026-01-01T00:00:05.000Z', reason: 'r' } },
    ])
    .then((rows) => {
      assert.equal(rows.oauth_clients[0].redirect_uris, ['x'])
      const [grant] = rows.oauth_grants
      assert.equal(
        [grant.access_hash, grant.refresh_hash, grant.previous_refresh_hash, grant.scopes],
        ['a2', 'r2', 'r1', ['kb:read', 'kb:write']],
      )
      assert.equal([Number(grant.created_position), Number(grant.revoked_position)], [2, 5])
      assert.ok(grant.refreshed_at && grant.revoked_at)
    }))

test("a member's removal ends the grants they gave in that workspace, not a later one", () =>
  oauth
    .given([
      { type: 'OAuthGrantApproved', data: approved },
      { type: 'OAuthCodeRedeemed', data: tokens(1) },
      { type: 'MemberRemoved', data: { workspaceId: 'ws-1', userId: 'user-2' } },
      { type: 'OAuthGrantApproved', data: { ...approved, grantId: 'grant-2', codeHash: 'code-2' } },
    ])
    .then((rows) => {
      assert.equal(rows.oauth_grants.map((g) => [g.id, g.revoked_position && Number(g.revoked_position)]).sort(), [
        ['grant-1', 3],
        ['grant-2', null],
      ])
    }))

test.run()
