import { suite } from 'uvu'
import { apiKey } from '../../domain/accounts/apiKey'
import { given } from '../../testkit/spec'
import { AT, KEY, WS, issue, issued, revoke } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: api key')

const revoked = { type: 'ApiKeyRevoked' as const, data: revoke.data }

test('api key: issuing a new key records ApiKeyIssued with its hash', () => {
  given(apiKey, [])
    .when(issue)
    .then([{ type: 'ApiKeyIssued', data: { keyId: KEY, workspaceId: WS, name: 'ci-bot', keyHash: 'hash-ab12' } }])
})

test('api key: issuing a key that is already issued is a CONFLICT', () => {
  given(apiKey, [issued]).when(issue).thenFails('CONFLICT')
})

test('api key: issuing a key again after it was revoked is a CONFLICT', () => {
  given(apiKey, [issued, revoked]).when(issue).thenFails('CONFLICT')
})

test('api key: revoking an active key records ApiKeyRevoked with the time', () => {
  given(apiKey, [issued])
    .when(revoke)
    .then([{ type: 'ApiKeyRevoked', data: { keyId: KEY, revokedAt: AT } }])
})

test('api key: revoking a key that was never issued is NOT_FOUND', () => {
  given(apiKey, []).when(revoke).thenFails('NOT_FOUND')
})

test('api key: revoking a revoked key records nothing', () => {
  const later = { type: 'RevokeApiKey' as const, data: { keyId: KEY, revokedAt: '2026-03-02T09:00:00.000Z' } }
  given(apiKey, [issued, revoked]).when(later).thenNothing()
})

test.run()
