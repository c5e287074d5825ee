import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import type { Embedder } from '../../adapters/embedders/port'
import { type EventStore, actorId } from '../../adapters/eventstore/port'
import { type ChunkSpans, type Chunking, type EntryMetadata, entry } from '../../domain/knowledge/entry'
import { type DomainError, fail } from '../../domain/shared'
import type { ParserPool } from '../../ingestion/parserPool'
import { type CommandContext, answered } from '../handle'
import { prepareContent } from './prepareContent'

export interface KnowledgeDeps {
  store: EventStore
  /** Read models, for the document count of the quota and a folder's entries. */
  db: Queryable
  embedder: Embedder
  /** Content is chunked in a worker thread, off the event loop. */
  parsers: Pick<ParserPool, 'chunk'>
}

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/** `text` is stored as `manual`; legacy values are stored as given. */
export const storedSource = (source: string) =>
  source === 'text' ? 'manual' : source === 'url' ? 'webpage' : source === 'file' ? 'document' : source

/** A folder of this workspace that is not deleted; anything else is NOT_FOUND. */
export const folderExists = async (store: EventStore, workspaceId: string, folderId: string) => {
  const { state } = await folders.on(store, folderId).load()
  return state.status === 'active' && state.workspaceId === workspaceId
}

/**
 * After an entry was written into a folder: if the folder was deleted since it was checked, the
 * delete's sweep (deleteFolder) ran before this write and missed the entry, so it is moved to
 * root here. A delete appended after this write finds the entry itself. Answers whether the entry
 * stayed, and the position of the last event written.
 */
export const stayInFolder = async (
  store: EventStore,
  ctx: CommandContext,
  ref: { workspaceId: string; entryId: string; folderId: string | null },
  position: number,
) => {
  if (!ref.folderId || (await folderExists(store, ref.workspaceId, ref.folderId))) return { stayed: true, position }
  const moved = await moveEntry(store, ctx, ref.workspaceId, ref.entryId, null)
  return { stayed: false, position: E.isRight(moved) ? Math.max(position, moved.right.position) : position }
}

import type { GivenVector } from './prepareContent'
import { entries, folders } from './aggregates'

export interface CreateEntryInput {
  workspaceId: string
  title: string
  content: string
  source: string
  metadata: EntryMetadata
  externalReferenceIds: Record<string, string>
  folderId: string | null
  isEnabled: boolean
  chunkingOptions: Partial<Chunking>
  /** A vector brought from another store (an operator's import): the workspace's model's, for one passage. */
  embedding?: GivenVector
}

/** Who wrote it, as the entry's createdBy: a user id, an agent's client name, a process. */
export const actorIdOf = (ctx: CommandContext) => actorId(ctx.actor)

export const updateEntry = async (
  deps: KnowledgeDeps,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  changes: { title?: string; content?: string; metadata?: EntryMetadata; isEnabled?: boolean },
): Result<{ id: string }> => {
  let withSpans: typeof changes & { tokenCount?: number; chunks?: ChunkSpans } = changes
  if (changes.content !== undefined || changes.title !== undefined) {
    // New content, or a new title (part of what is embedded): vectors are made before the write.
    const { state } = await entries.on(deps.store, entryId).load()
    if (state.status !== 'active' || state.workspaceId !== workspaceId)
      return fail('NOT_FOUND', 'knowledge entry not found')
    // A change the entry refuses (its content while a task fills it) is refused before it is embedded.
    const refused = entry.decide({ type: 'UpdateEntry', data: { workspaceId, entryId, changes } }, state)
    if (E.isLeft(refused)) return refused
    const prepared = await prepareContent(
      deps,
      changes.title ?? state.title,
      [{ text: changes.content ?? state.content }],
      state.chunking,
      state.embed,
    )
    if (E.isLeft(prepared)) return prepared
    if (changes.content !== undefined)
      withSpans = { ...changes, tokenCount: prepared.right.tokenCount, chunks: prepared.right.chunks }
  }
  const done = await entries
    .on(deps.store, entryId)
    .handle({ type: 'UpdateEntry', data: { workspaceId, entryId, changes: withSpans } }, ctx)
  return answered({ id: entryId })(done)
}

/** Sets an entry's metadata whole (an update merges the keys it names): what an undo restores. */
export const replaceEntryMetadata = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  metadata: EntryMetadata,
): Result<{ id: string }> => {
  const done = await entries
    .on(store, entryId)
    .handle({ type: 'ReplaceEntryMetadata', data: { workspaceId, entryId, metadata } }, ctx)
  return answered({ id: entryId })(done)
}

export const moveEntry = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  folderId: string | null,
): Result<{ id: string; folderId: string | null; previousFolderId: string | null }> => {
  const before = await entries.on(store, entryId).load()
  if (before.state.status !== 'active' || before.state.workspaceId !== workspaceId)
    return fail('NOT_FOUND', 'knowledge entry not found')
  if (folderId && !(await folderExists(store, workspaceId, folderId)))
    return fail('NOT_FOUND', 'folder not found', ['folderId: no such folder'])
  const previousFolderId = before.state.folderId
  const done = await entries
    .on(store, entryId)
    .handle({ type: 'MoveEntry', data: { workspaceId, entryId, folderId } }, ctx)
  if (E.isLeft(done)) return done
  const settled = await stayInFolder(store, ctx, { workspaceId, entryId, folderId }, done.right.position)
  if (!settled.stayed) {
    const details = ['folderId: the folder was deleted meanwhile; the entry is at root']
    return E.left({ code: 'NOT_FOUND', message: 'folder not found', details, writtenAt: settled.position })
  }
  return E.right({ id: entryId, folderId, previousFolderId, position: done.right.position })
}

export const verifyEntry = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  by: string,
): Result<{ id: string }> => {
  const done = await entries
    .on(store, entryId)
    .handle({ type: 'VerifyEntry', data: { workspaceId, entryId, at: ctx.at, by } }, ctx)
  return answered({ id: entryId })(done)
}
