import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as E from 'fp-ts/Either'
import { accessToken } from '../../domain/accessToken'
import { member } from '../../domain/member'
import { reservation } from '../../domain/reservation'
import type { Decider } from '../../domain/shared'

// given(events).when(command) -> events or an error code
const given = <C, Ev, S>(d: Decider<C, Ev, S>, events: NoInfer<Ev>[]) => ({
  when: (command: C) => {
    const result = d.decide(command, events.reduce(d.evolve, d.initialState()))
    return E.isLeft(result) ? { error: result.left.code } : { events: result.right }
  },
})

const test = suite('deciders')
const reserved = { type: 'KeyReserved' as const, data: { key: 'k', ownerId: 'a', at: '2026-01-01T00:00:00.000Z' } }

test('reservation: a held key conflicts; the same owner is already satisfied', () => {
  assert.equal(
    given(reservation, [reserved]).when({
      type: 'Reserve',
      data: { key: 'k', ownerId: 'b', holderExists: true, at: '2026-01-02T00:00:00.000Z' },
    }),
    { error: 'CONFLICT' },
  )
  assert.equal(
    given(reservation, [reserved]).when({
      type: 'Reserve',
      data: { key: 'k', ownerId: 'a', holderExists: false, at: '2026-01-01T00:00:01.000Z' },
    }),
    { events: [] },
  )
})

test('reservation: a holder that never came into being is taken over only after the grace period', () => {
  const young = given(reservation, [reserved]).when({
    type: 'Reserve',
    data: { key: 'k', ownerId: 'b', holderExists: false, at: '2026-01-01T00:00:30.000Z' },
  })
  assert.equal(young, { error: 'CONFLICT' })
  const old = given(reservation, [reserved]).when({
    type: 'Reserve',
    data: { key: 'k', ownerId: 'b', holderExists: false, at: '2026-01-01T00:02:00.000Z' },
  })
  assert.equal(old, {
    events: [{ type: 'KeyReserved', data: { key: 'k', ownerId: 'b', at: '2026-01-01T00:02:00.000Z' } }],
  })
})

test('reservation: a released key is free again', () => {
  const released = { type: 'KeyReleased' as const, data: { key: 'k', ownerId: 'a' } }
  const r = given(reservation, [reserved, released]).when({
    type: 'Reserve',
    data: { key: 'k', ownerId: 'b', holderExists: false, at: '2026-01-01T00:00:01.000Z' },
  })
  assert.is((r as { events: unknown[] }).events.length, 1)
})

test('access token: revoke twice is satisfied once; revoking an unknown token is NOT_FOUND', () => {
  const issued = {
    type: 'AccessTokenIssued' as const,
    data: { tokenId: 't', userId: 'u', workspaceId: 'w', tokenHash: 'h', issuedAt: 'x', expiresAt: 'y' },
  }
  const revoke = { type: 'RevokeAccessToken' as const, data: { tokenId: 't', revokedAt: 'z' } }
  assert.equal(given(accessToken, [issued]).when(revoke), {
    events: [{ type: 'AccessTokenRevoked', data: revoke.data }],
  })
  assert.equal(given(accessToken, [issued, { type: 'AccessTokenRevoked', data: revoke.data }]).when(revoke), {
    events: [],
  })
  assert.equal(given(accessToken, []).when(revoke), { error: 'NOT_FOUND' })
})

test('member: adding, changing the role, and setting the same role again', () => {
  const data = { workspaceId: 'w', userId: 'u', role: 'viewer' as const }
  assert.equal(given(member, []).when({ type: 'SetMember', data }), { events: [{ type: 'MemberAdded', data }] })
  assert.equal(given(member, [{ type: 'MemberAdded', data }]).when({ type: 'SetMember', data }), { events: [] })
  const editor = { ...data, role: 'editor' as const }
  assert.equal(given(member, [{ type: 'MemberAdded', data }]).when({ type: 'SetMember', data: editor }), {
    events: [{ type: 'MemberRoleChanged', data: editor }],
  })
})

test.run()
