import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import type { EventStore } from '../../adapters/eventstore/port'
import type { Logger } from '../../adapters/logger'
import { type StoredFiles, deleteEntry, finishDeletion } from '../../commands/knowledge/deleteEntry'
import { entriesInDeletedFolders, heldByAnEntry } from '../../queries/knowledge/knowledge'
import { entryTombstones, expiredEntries } from '../../queries/knowledge/retention'
import { moveEntry } from '../../commands/knowledge/knowledge'
import { sweepRateLimits } from '../../adapters/rateLimit'
import { sweepMcpSessions } from '../../adapters/mcpSessions'

const PROCESS = 'retention-sweeper'

const systemContext = (now: Date) => ({
  actor: { kind: 'system' as const, process: PROCESS },
  at: now.toISOString(),
  correlationId: randomUUID(),
})

/**
 * Deletes the entries whose last activity (updatedAt, verification, last sync) is older than
 * their workspace's retentionDays (0 = never), as ordinary delete commands by a system actor.
 */
export const sweepRetention = async (
  db: Queryable,
  store: EventStore,
  log: Logger,
  now = new Date(),
  files?: StoredFiles,
): Promise<number> => {
  let deleted = 0
  for (const r of await expiredEntries(db, now)) {
    const ctx = { ...systemContext(now), workspaceId: r.workspace_id }
    const done = await deleteEntry(store, ctx, r.workspace_id, r.id, PROCESS, files)
    if (E.isRight(done)) deleted++
  }
  if (deleted) log.info({ deleted }, 'retention sweep deleted expired entries')
  return deleted
}

/**
 * Finishes deletions a crash interrupted between the tombstone and the cut: any entry stream
 * whose tombstone still has events before it is cut now.
 */
export const completeDeletions = async (db: Queryable, store: EventStore, files?: StoredFiles): Promise<number> => {
  let cut = 0
  for (const r of await entryTombstones(db)) if (await finishDeletion(store, r.stream_id, r.revision, files)) cut++
  return cut
}

/**
 * Moves to root the entries a folder's deletion left in it (written into it while it was deleted,
 * or a crash before its sweep ended), as the deletion itself would have.
 */
export const finishFolderDeletions = async (db: Queryable, store: EventStore, now = new Date()): Promise<number> => {
  let moved = 0
  for (const r of await entriesInDeletedFolders(db)) {
    const ctx = { ...systemContext(now), workspaceId: r.workspace_id }
    if (E.isRight(await moveEntry(store, ctx, r.workspace_id, r.id, null))) moved++
  }
  return moved
}

/** How old an unreferenced stored file must be before it counts as left behind, not as an upload on its way. */
export const ORPHAN_AGE_MS = 60 * 60 * 1000

/**
 * Removes stored files no entry holds: an upload whose entry was never created (refused after the
 * file was stored, or a crash in between), and temporaries a crash left half written. Only for a
 * caller whose entries read model is complete (caught up, not being rebuilt): a missing row would
 * cost a file an entry needs.
 */
export const removeOrphanFiles = async (files: StoredFiles, now = new Date()): Promise<number> => {
  const before = new Date(now.getTime() - ORPHAN_AGE_MS)
  const { hashes, temporaries } = await files.blobs.writtenBefore(before)
  for (const file of temporaries) await files.blobs.removeTemporary(file)
  let removed = temporaries.length
  for (const hash of hashes) {
    if (!(await heldByAnEntry(files.db, hash)) && (await files.blobs.removeIfWrittenBefore(hash, before))) removed++
  }
  return removed
}

/**
 * The sweeps, at start and every `intervalMs`. `entriesComplete` says whether the entries read
 * model holds every entry now (the orphan sweep needs it).
 */
export const startRetentionSweeper = (
  db: Queryable,
  store: EventStore,
  log: Logger,
  intervalMs: number,
  files?: StoredFiles,
  entriesComplete?: () => Promise<boolean>,
) => {
  const sweep = () =>
    completeDeletions(db, store, files)
      .then(() => finishFolderDeletions(db, store))
      .then((moved) => moved && log.info({ moved }, 'moved to root the entries left in deleted folders'))
      .then(() => sweepRetention(db, store, log, new Date(), files))
      .then(() => sweepRateLimits(db))
      .then(() => sweepMcpSessions(db))
      .then(async () => {
        const removed = files && (await entriesComplete?.()) ? await removeOrphanFiles(files) : 0
        if (removed) log.info({ removed }, 'removed stored files no entry holds')
      })
      .catch((error) => log.error({ err: error }, 'retention sweep failed'))
  void sweep()
  const timer = setInterval(sweep, intervalMs)
  timer.unref()
  return () => clearInterval(timer)
}
