import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import type { EventStore } from '../../adapters/eventstore/port'
import { type DomainError, fail } from '../../domain/shared'
import { type CommandContext, answered } from '../handle'
import { moveEntry } from './knowledge'
import { nameKey, release, reserve } from '../reservations'
import { entryIdsInFolder } from '../../queries/knowledge/knowledge'
import { folders } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

export interface FolderFields {
  description?: string
  color?: string
  icon?: string
}

// Folder names are unique per workspace, case-insensitively, through a reservation stream.
const scope = (workspaceId: string) => `folder-name:${workspaceId}`
const taken = (name: string) =>
  fail('CONFLICT', `a folder named "${name}" already exists`, [`name: "${name}" is taken`])

export const createFolder = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  name: string,
  fields: FolderFields,
): Result<{ id: string }> => {
  const id = randomUUID()
  if (E.isLeft(await reserve(store, ctx, scope(workspaceId), nameKey(name), id, folders.stream))) return taken(name)
  const done = await folders
    .on(store, id)
    .handle({ type: 'CreateFolder', data: { folderId: id, workspaceId, name: name.trim(), ...fields } }, ctx)
  return answered({ id })(done)
}

const activeFolder = async (store: EventStore, workspaceId: string, folderId: string) => {
  const { state } = await folders.on(store, folderId).load()
  return state.status === 'active' && state.workspaceId === workspaceId ? state : undefined
}

export const updateFolder = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  folderId: string,
  changes: FolderFields & { name?: string },
): Result<{ id: string }> => {
  const current = await activeFolder(store, workspaceId, folderId)
  if (!current) return fail('NOT_FOUND', 'folder not found')
  const renamed = changes.name !== undefined && nameKey(changes.name) !== nameKey(current.name)
  if (
    renamed &&
    E.isLeft(await reserve(store, ctx, scope(workspaceId), nameKey(changes.name!), folderId, folders.stream))
  )
    return taken(changes.name!)
  const done = await folders.on(store, folderId).handle(
    {
      type: 'UpdateFolder',
      data: { folderId, changes: { ...changes, ...(changes.name ? { name: changes.name.trim() } : {}) } },
    },
    ctx,
  )
  if (E.isRight(done) && renamed) await release(store, ctx, scope(workspaceId), nameKey(current.name), folderId)
  return answered({ id: folderId })(done)
}

/** Times a folder's deletion looks for entries left in it. */
const SWEEPS = 3

/** Deletes the folder and moves its entries to root before answering. */
export const deleteFolder = async (
  store: EventStore,
  db: Queryable,
  waitFor: (position: number) => Promise<boolean>,
  ctx: CommandContext,
  workspaceId: string,
  folderId: string,
): Result<{ deleted: true; id: string; movedToRoot: number }> => {
  const current = await activeFolder(store, workspaceId, folderId)
  if (!current) return fail('NOT_FOUND', 'folder not found')
  const done = await folders.on(store, folderId).handle({ type: 'DeleteFolder', data: { folderId } }, ctx)
  if (E.isLeft(done)) return done
  await release(store, ctx, scope(workspaceId), nameKey(current.name), folderId)
  let position = done.right.position
  // Every entry written into the folder before its deletion is in the read model once it reaches
  // the deletion; one written after moves itself (stayInFolder) and answers once that move is read.
  // The sweep looks again once the read model reached its own moves, and while a wait gave up;
  // at most SWEEPS times, and the retention sweeper finishes what remains.
  let moved = 0
  for (let sweep = 0; sweep < SWEEPS; sweep++) {
    const caughtUp = await waitFor(position)
    const ids = await entryIdsInFolder(db, workspaceId, folderId)
    if (ids.length === 0 && caughtUp) break
    for (const id of ids) {
      const move = await moveEntry(store, ctx, workspaceId, id, null)
      if (E.isRight(move)) position = Math.max(position, move.right.position)
    }
    moved += ids.length
  }
  return E.right({ deleted: true as const, id: folderId, movedToRoot: moved, position })
}
