import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, differing, fail, assertNever } from '../shared'

/** `hold_for_review`: an agent's write into the collection becomes a proposal a person approves. */
export const WritePolicy = t.keyof({ open: null, hold_for_review: null })
export type WritePolicy = t.TypeOf<typeof WritePolicy>

const Fields = t.partial({ description: t.string, writePolicy: WritePolicy })

export const CollectionCreated = t.type({
  type: t.literal('CollectionCreated'),
  data: t.type({
    collectionId: t.string,
    workspaceId: t.string,
    name: t.string,
    description: t.string,
    writePolicy: WritePolicy,
  }),
})
export type CollectionCreated = t.TypeOf<typeof CollectionCreated>
export const CollectionUpdated = t.type({
  type: t.literal('CollectionUpdated'),
  data: t.type({ collectionId: t.string, changes: t.intersection([t.partial({ name: t.string }), Fields]) }),
})
export type CollectionUpdated = t.TypeOf<typeof CollectionUpdated>
/** The collection's verified pages, served publicly under the slug. */
export const CollectionPublished = t.type({
  type: t.literal('CollectionPublished'),
  data: t.type({ collectionId: t.string, workspaceId: t.string, slug: t.string }),
})
export type CollectionPublished = t.TypeOf<typeof CollectionPublished>
export const CollectionDeleted = t.type({
  type: t.literal('CollectionDeleted'),
  data: t.type({ collectionId: t.string }),
})
export type CollectionDeleted = t.TypeOf<typeof CollectionDeleted>

export const CollectionEvent = t.union([CollectionCreated, CollectionUpdated, CollectionPublished, CollectionDeleted])
export type CollectionEvent = t.TypeOf<typeof CollectionEvent>

export type CollectionCommand =
  | { type: 'CreateCollection'; data: CollectionCreated['data'] }
  | { type: 'UpdateCollection'; data: CollectionUpdated['data'] }
  | { type: 'PublishCollection'; data: CollectionPublished['data'] }
  | { type: 'DeleteCollection'; data: { collectionId: string } }

export type CollectionState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted'
      workspaceId: string
      name: string
      description: string
      writePolicy: WritePolicy
      slug: string | null
    }

export const collection: Decider<CollectionCommand, CollectionEvent, CollectionState> = {
  events: CollectionEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'CollectionCreated':
        return {
          status: 'active',
          workspaceId: event.data.workspaceId,
          name: event.data.name,
          description: event.data.description,
          writePolicy: event.data.writePolicy,
          slug: null,
        }
      case 'CollectionUpdated':
        return state.status === 'none' ? state : { ...state, ...event.data.changes }
      case 'CollectionPublished':
        return state.status === 'none' ? state : { ...state, slug: event.data.slug }
      case 'CollectionDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreateCollection') {
      if (state.status !== 'none') return fail('CONFLICT', 'the collection already exists')
      return E.right([{ type: 'CollectionCreated', data: command.data }])
    }
    if (state.status !== 'active') return fail('NOT_FOUND', 'collection not found')
    switch (command.type) {
      case 'UpdateCollection': {
        const changes = differing(command.data.changes, state)
        return E.right(
          Object.keys(changes).length ? [{ type: 'CollectionUpdated', data: { ...command.data, changes } }] : [],
        )
      }
      case 'PublishCollection':
        if (state.slug === command.data.slug) return E.right([])
        if (state.slug)
          return fail('CONFLICT', `the collection is already published as ${state.slug}`, [
            `collectionId: already published as ${state.slug}`,
          ])
        return E.right([{ type: 'CollectionPublished', data: command.data }])
      case 'DeleteCollection':
        return E.right([{ type: 'CollectionDeleted', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
