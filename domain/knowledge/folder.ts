import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, differing, fail, assertNever } from '../shared'

const Fields = t.partial({ description: t.string, color: t.string, icon: t.string })

export const FolderCreated = t.type({
  type: t.literal('FolderCreated'),
  data: t.intersection([t.type({ folderId: t.string, workspaceId: t.string, name: t.string }), Fields]),
})
export type FolderCreated = t.TypeOf<typeof FolderCreated>
export const FolderUpdated = t.type({
  type: t.literal('FolderUpdated'),
  data: t.type({ folderId: t.string, changes: t.intersection([t.partial({ name: t.string }), Fields]) }),
})
export type FolderUpdated = t.TypeOf<typeof FolderUpdated>
export const FolderDeleted = t.type({ type: t.literal('FolderDeleted'), data: t.type({ folderId: t.string }) })
export type FolderDeleted = t.TypeOf<typeof FolderDeleted>

export const FolderEvent = t.union([FolderCreated, FolderUpdated, FolderDeleted])
export type FolderEvent = t.TypeOf<typeof FolderEvent>

export type FolderCommand =
  | { type: 'CreateFolder'; data: FolderCreated['data'] }
  | { type: 'UpdateFolder'; data: FolderUpdated['data'] }
  | { type: 'DeleteFolder'; data: { folderId: string } }

export type FolderState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted'
      workspaceId: string
      name: string
      description?: string
      color?: string
      icon?: string
    }

export const folder: Decider<FolderCommand, FolderEvent, FolderState> = {
  events: FolderEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'FolderCreated':
        return { ...event.data, status: 'active' }
      case 'FolderUpdated':
        return state.status === 'none' ? state : { ...state, ...event.data.changes }
      case 'FolderDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateFolder':
        if (state.status !== 'none') return fail('CONFLICT', 'the folder already exists')
        return E.right([{ type: 'FolderCreated', data: command.data }])
      case 'UpdateFolder': {
        if (state.status !== 'active') return fail('NOT_FOUND', 'folder not found')
        const changes = differing(command.data.changes, state)
        return E.right(
          Object.keys(changes).length ? [{ type: 'FolderUpdated', data: { ...command.data, changes } }] : [],
        )
      }
      case 'DeleteFolder':
        if (state.status !== 'active') return fail('NOT_FOUND', 'folder not found')
        return E.right([{ type: 'FolderDeleted', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
