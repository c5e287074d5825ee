import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail, assertNever } from '../shared'

// Only the SHA-256 hash of a key is recorded. The key's name is the agent client name of
// tool calls made with it outside an MCP session.
export const ApiKeyIssued = t.type({
  type: t.literal('ApiKeyIssued'),
  data: t.type({ keyId: t.string, workspaceId: t.string, name: t.string, keyHash: t.string }),
})
export type ApiKeyIssued = t.TypeOf<typeof ApiKeyIssued>
export const ApiKeyRevoked = t.type({
  type: t.literal('ApiKeyRevoked'),
  data: t.type({ keyId: t.string, revokedAt: t.string }),
})
export type ApiKeyRevoked = t.TypeOf<typeof ApiKeyRevoked>

export const ApiKeyEvent = t.union([ApiKeyIssued, ApiKeyRevoked])
export type ApiKeyEvent = t.TypeOf<typeof ApiKeyEvent>

export type ApiKeyCommand =
  | { type: 'IssueApiKey'; data: ApiKeyIssued['data'] }
  | { type: 'RevokeApiKey'; data: { keyId: string; revokedAt: string } }

export type ApiKeyState = { status: 'none' } | { status: 'active' | 'revoked'; workspaceId: string }

export const apiKey: Decider<ApiKeyCommand, ApiKeyEvent, ApiKeyState> = {
  events: ApiKeyEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) =>
    event.type === 'ApiKeyIssued'
      ? { status: 'active', workspaceId: event.data.workspaceId }
      : state.status === 'none'
        ? state
        : { ...state, status: 'revoked' },
  decide: (command, state) => {
    switch (command.type) {
      case 'IssueApiKey':
        if (state.status !== 'none') return fail('CONFLICT', `API key ${command.data.keyId} already issued`)
        return E.right([{ type: 'ApiKeyIssued', data: command.data }])
      case 'RevokeApiKey':
        if (state.status === 'none') return fail('NOT_FOUND', `API key ${command.data.keyId} not found`)
        if (state.status === 'revoked') return E.right([])
        return E.right([{ type: 'ApiKeyRevoked', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
