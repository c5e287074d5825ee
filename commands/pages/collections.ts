import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import type { EventStore } from '../../adapters/eventstore/port'
import { type CollectionCommand, type WritePolicy } from '../../domain/pages/collection'
import { type DomainError, fail } from '../../domain/shared'
import { type CommandContext, answered } from '../handle'
import { setPageCollection } from './pages'
import { nameKey, release, reserve } from '../reservations'
import { pageIdsInCollection } from '../../queries/pages/pages'
import { collections } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

// Names are unique per workspace (case-insensitive); pack slugs are unique across the service.
const nameScope = (workspaceId: string) => `collection-name:${workspaceId}`
const PACK_SCOPE = 'pack-slug'
const nameTaken = (name: string) =>
  fail('CONFLICT', `a collection named "${name}" already exists`, [`name: "${name}" is taken`])

/** The collection's state when it is live in the workspace. */
export const activeCollection = async (store: EventStore, workspaceId: string, collectionId: string) => {
  const { state } = await collections.on(store, collectionId).load()
  return state.status === 'active' && state.workspaceId === workspaceId ? state : undefined
}

export const collectionNotFound = (field = 'collectionId') =>
  fail('NOT_FOUND', 'collection not found', [`${field}: no such collection in this workspace`])

export const createCollection = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  input: { name: string; description?: string; writePolicy?: WritePolicy },
): Result<{ id: string }> => {
  const id = randomUUID()
  const name = input.name.trim()
  if (E.isLeft(await reserve(store, ctx, nameScope(workspaceId), nameKey(name), id, collections.stream)))
    return nameTaken(name)
  const done = await collections.on(store, id).handle(
    {
      type: 'CreateCollection',
      data: {
        collectionId: id,
        workspaceId,
        name,
        description: input.description ?? '',
        writePolicy: input.writePolicy ?? 'open',
      },
    },
    ctx,
  )
  return answered({ id })(done)
}

const send = async (store: EventStore, ctx: CommandContext, command: CollectionCommand) => {
  const done = await collections.on(store, command.data.collectionId).handle(command, ctx)
  return answered({ id: command.data.collectionId })(done)
}

export const updateCollection = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  collectionId: string,
  changes: { name?: string; description?: string; writePolicy?: WritePolicy },
): Result<{ id: string }> => {
  const current = await activeCollection(store, workspaceId, collectionId)
  if (!current) return collectionNotFound('id')
  const renamed = changes.name !== undefined && nameKey(changes.name) !== nameKey(current.name)
  if (
    renamed &&
    E.isLeft(
      await reserve(store, ctx, nameScope(workspaceId), nameKey(changes.name!), collectionId, collections.stream),
    )
  )
    return nameTaken(changes.name!.trim())
  const done = await send(store, ctx, {
    type: 'UpdateCollection',
    data: { collectionId, changes: { ...changes, ...(changes.name ? { name: changes.name.trim() } : {}) } },
  })
  if (E.isRight(done) && renamed) await release(store, ctx, nameScope(workspaceId), nameKey(current.name), collectionId)
  return done
}

/** Deletes the collection: its pages stay, outside any collection; its pack goes offline. */
export const deleteCollection = async (
  store: EventStore,
  db: Queryable,
  ctx: CommandContext,
  workspaceId: string,
  collectionId: string,
): Result<{ deleted: true; id: string }> => {
  const current = await activeCollection(store, workspaceId, collectionId)
  if (!current) return collectionNotFound('id')
  const done = await send(store, ctx, { type: 'DeleteCollection', data: { collectionId } })
  if (E.isLeft(done)) return done
  await release(store, ctx, nameScope(workspaceId), nameKey(current.name), collectionId)
  if (current.slug) await release(store, ctx, PACK_SCOPE, current.slug, collectionId)
  let position = done.right.position
  for (const pageId of await pageIdsInCollection(db, workspaceId, collectionId)) {
    const moved = await setPageCollection(store, ctx, workspaceId, pageId, null)
    if (E.isRight(moved)) position = Math.max(position, moved.right.position)
  }
  return E.right({ deleted: true as const, id: collectionId, position })
}

/** Publishes the collection's verified pages as a public pack under a slug unique across the service. */
export const publishPack = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  collectionId: string,
  slug: string,
): Result<{ slug: string }> => {
  const current = await activeCollection(store, workspaceId, collectionId)
  if (!current) return collectionNotFound()
  if (current.slug === slug) return E.right({ slug, position: 0 })
  if (current.slug)
    return fail('CONFLICT', `the collection is already published as ${current.slug}`, [
      `collectionId: already published as ${current.slug}`,
    ])
  if (E.isLeft(await reserve(store, ctx, PACK_SCOPE, slug, collectionId, collections.stream))) {
    return fail('CONFLICT', `the pack slug "${slug}" is taken`, [`slug: "${slug}" is taken`])
  }
  const done = await send(store, ctx, { type: 'PublishCollection', data: { collectionId, workspaceId, slug } })
  return answered({ slug })(done)
}
