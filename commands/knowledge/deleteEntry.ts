import * as E from 'fp-ts/Either'
import type { BlobStore } from '../../adapters/blobs'
import type { Queryable } from '../../adapters/db'
import type { EventStore } from '../../adapters/eventstore/port'
import { type EntryCreated, type StorageInfo } from '../../domain/knowledge/entry'
import type { DomainError } from '../../domain/shared'
import { heldByAnEntry } from '../../queries/knowledge/knowledge'
import { type CommandContext } from '../handle'
import { entries, tasks } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

export interface StoredFiles {
  blobs: BlobStore
  db: Queryable
}

/**
 * Removes an entry's uploaded file, unless another entry holds the same bytes (blobs are by hash),
 * or they were uploaded again meanwhile (an entry on its way, not in the read model yet).
 */
export const removeStoredFile = async (files: StoredFiles, entryId: string, storage: StorageInfo | undefined) => {
  const asked = new Date()
  if (storage && !(await heldByAnEntry(files.db, storage.blob, entryId)))
    await files.blobs.removeIfWrittenBefore(storage.blob, asked)
}

/**
 * Finishes a deletion a crash interrupted between the tombstone (at `revision`) and the cut: the
 * stored file is removed and the stream cut to the tombstone. Answers whether anything was left.
 */
export const finishDeletion = async (store: EventStore, streamId: string, revision: number, files?: StoredFiles) => {
  const [first] = await store.readStream(streamId, { maxCount: 1 })
  if (!first || first.revision >= revision) return false
  if (files && first.type === 'EntryCreated') {
    const created = first.data as EntryCreated['data']
    await removeStoredFile(files, created.entryId, created.storage)
  }
  await store.truncateBefore(streamId, revision)
  return true
}

/**
 * Deletes the entry, its stored file, and cuts its stream to the tombstone, so no rebuild can
 * bring the content back. A crash after the tombstone is finished by `finishDeletion` (the retention sweeper).
 */
export const deleteEntry = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  deletedBy: string,
  files?: StoredFiles,
): Result<{ deleted: true; id: string }> => {
  const before = await entries.on(store, entryId).load()
  const [created] = await store.readStream(entries.stream(entryId), { maxCount: 1 })
  const done = await entries.on(store, entryId).handle(
    {
      type: 'DeleteEntry',
      data: {
        entryId,
        workspaceId,
        deletedBy,
        at: ctx.at,
        ...(created ? { createdPosition: created.position } : {}),
      },
    },
    ctx,
  )
  if (E.isLeft(done)) return done
  if (files && before.state.status === 'active') await removeStoredFile(files, entryId, before.state.storage)
  if (typeof done.right.revision === 'number') await store.truncateBefore(entries.stream(entryId), done.right.revision)
  // The task filling the entry has nothing left to fill: it fails now, not when a worker finds out.
  let position = done.right.position
  const pending = before.state.status === 'active' ? before.state.pendingTaskId : null
  if (pending) {
    const failed = await tasks
      .on(store, pending)
      .handle(
        { type: 'FailTask', data: { taskId: pending, error: 'the entry was deleted before it was processed' } },
        ctx,
      )
    if (E.isRight(failed)) position = Math.max(position, failed.right.position)
  }
  return E.right({ deleted: true as const, id: entryId, position })
}
