import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Queryable } from '../adapters/db'
import type { Embedder } from '../adapters/embedders/port'
import type { EventStore } from '../adapters/eventstore/port'
import { type ChunkSpans, type Chunking, type EntryMetadata, entry } from '../domain/entry'
import { folder } from '../domain/folder'
import { type KbConfig, type KbConfigChanges, kbConfig } from '../domain/kbConfig'
import { type DomainError, fail } from '../domain/shared'
import { embedCached, embeddingInput } from '../adapters/embeddingCache'
import { countTokens } from '../adapters/text'
import { chunkText } from '../workers/chunker'
import { type CommandContext, handle, load } from './handle'
import { streams } from './streams'

export interface KnowledgeDeps {
  store: EventStore
  /** Read models, for the document count of the quota and a folder's entries. */
  db: Queryable
  embedder: Embedder
}

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/** DESIGN.md: `text` is stored as `manual`; legacy values are stored as given. */
export const storedSource = (source: string) => (source === 'text' ? 'manual' : source === 'url' ? 'webpage' : source === 'file' ? 'document' : source)

export const loadKbConfig = async (store: EventStore, workspaceId: string): Promise<KbConfig> =>
  (await load(store, streams.kbConfig(workspaceId), kbConfig)).state

export const changeKbConfig = async (store: EventStore, ctx: CommandContext, workspaceId: string, changes: KbConfigChanges): Result<{ config: KbConfig }> => {
  const done = await handle(store, streams.kbConfig(workspaceId), kbConfig, { type: 'ChangeKbConfig', data: { workspaceId, changes } }, ctx)
  if (E.isLeft(done)) return done
  return E.right({ config: await loadKbConfig(store, workspaceId), position: done.right.position })
}

/** A folder of this workspace that is not deleted; anything else is NOT_FOUND. */
export const folderExists = async (store: EventStore, workspaceId: string, folderId: string) => {
  const { state } = await load(store, streams.folder(folderId), folder)
  return state.status === 'active' && state.workspaceId === workspaceId
}

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
}

export const createTextEntry = async (deps: KnowledgeDeps, ctx: CommandContext, input: CreateEntryInput): Result<{ id: string }> => {
  const config = await loadKbConfig(deps.store, input.workspaceId)
  if (!config.enabled) return fail('FORBIDDEN', "this workspace's knowledge base is disabled")
  const { rows } = await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_entries WHERE workspace_id = $1', [input.workspaceId])
  if (rows[0].n >= config.maxDocuments) return fail('QUOTA_EXCEEDED', `the knowledge base holds its maximum of ${config.maxDocuments} documents`)
  if (input.folderId && !(await folderExists(deps.store, input.workspaceId, input.folderId))) return fail('NOT_FOUND', 'folder not found', ['folderId: no such folder'])
  const chunking: Chunking = {
    chunkSizeTokens: input.chunkingOptions.chunkSizeTokens ?? config.ingestion.chunkSize,
    overlapTokens: input.chunkingOptions.overlapTokens ?? config.ingestion.chunkOverlap,
    preserveSentences: input.chunkingOptions.preserveSentences ?? true,
  }
  if (chunking.overlapTokens >= chunking.chunkSizeTokens) {
    return fail('VALIDATION_ERROR', 'the request is not valid', ['chunkingOptions.overlapTokens: must be below chunkingOptions.chunkSizeTokens'])
  }
  const prepared = await prepareContent(deps, input.title, input.content, chunking, config.ingestion.autoEmbed)
  if (E.isLeft(prepared)) return prepared
  const id = randomUUID()
  const createdBy = ctx.actor.kind === 'human' ? ctx.actor.userId : ctx.actor.kind === 'agent' ? ctx.actor.client : ctx.actor.process
  const { chunkingOptions: _, ...fields } = input
  const done = await handle(deps.store, streams.entry(id), entry, {
    type: 'CreateEntry',
    data: { ...fields, ...prepared.right, entryId: id, source: storedSource(input.source), chunking, embed: config.ingestion.autoEmbed, createdBy },
  }, ctx)
  return E.map((h: { position: number }) => ({ id, position: h.position }))(done)
}

/**
 * Chunks the content once, for the event to carry, and embeds the chunks into the cache before
 * the write so the projection finds them; a failing embedder is a 503 and nothing is written.
 */
const prepareContent = async (deps: KnowledgeDeps, title: string, content: string, chunking: Chunking, embed: boolean): Promise<E.Either<DomainError, { tokenCount: number; chunks: ChunkSpans }>> => {
  const chunks = chunkText(content, chunking)
  if (embed) {
    try {
      await embedCached(deps.db, deps.embedder, chunks.map((c) => embeddingInput(title, c.text)))
    } catch (error) {
      return fail('SERVICE_UNAVAILABLE', `the embedding model is unavailable: ${(error as Error).message}`)
    }
  }
  return E.right({ tokenCount: countTokens(content), chunks: chunks.map(({ start, end, tokenCount }) => ({ start, end, tokenCount })) })
}

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
    const { state } = await load(deps.store, streams.entry(entryId), entry)
    if (state.status !== 'active' || state.workspaceId !== workspaceId) return fail('NOT_FOUND', 'knowledge entry not found')
    const prepared = await prepareContent(deps, changes.title ?? state.title, changes.content ?? state.content, state.chunking, state.embed)
    if (E.isLeft(prepared)) return prepared
    if (changes.content !== undefined) withSpans = { ...changes, ...prepared.right }
  }
  const done = await handle(deps.store, streams.entry(entryId), entry, { type: 'UpdateEntry', data: { workspaceId, entryId, changes: withSpans } }, ctx)
  return E.map((h: { position: number }) => ({ id: entryId, position: h.position }))(done)
}

export const moveEntry = async (store: EventStore, ctx: CommandContext, workspaceId: string, entryId: string, folderId: string | null): Result<{ id: string; folderId: string | null; previousFolderId: string | null }> => {
  const before = await load(store, streams.entry(entryId), entry)
  if (before.state.status !== 'active' || before.state.workspaceId !== workspaceId) return fail('NOT_FOUND', 'knowledge entry not found')
  if (folderId && !(await folderExists(store, workspaceId, folderId))) return fail('NOT_FOUND', 'folder not found', ['folderId: no such folder'])
  const previousFolderId = before.state.folderId
  const done = await handle(store, streams.entry(entryId), entry, { type: 'MoveEntry', data: { workspaceId, entryId, folderId } }, ctx)
  return E.map((h: { position: number }) => ({ id: entryId, folderId, previousFolderId, position: h.position }))(done)
}

export const verifyEntry = async (store: EventStore, ctx: CommandContext, workspaceId: string, entryId: string, by: string): Result<{ id: string }> => {
  const done = await handle(store, streams.entry(entryId), entry, { type: 'VerifyEntry', data: { workspaceId, entryId, at: ctx.at, by } }, ctx)
  return E.map((h: { position: number }) => ({ id: entryId, position: h.position }))(done)
}

/** Deletes the entry and cuts its stream to the tombstone, so no rebuild can bring the content back. */
export const deleteEntry = async (store: EventStore, ctx: CommandContext, workspaceId: string, entryId: string, deletedBy: string): Result<{ deleted: true; id: string }> => {
  const done = await handle(store, streams.entry(entryId), entry, { type: 'DeleteEntry', data: { entryId, workspaceId, deletedBy, at: ctx.at } }, ctx)
  if (E.isLeft(done)) return done
  if (typeof done.right.revision === 'number') await store.truncateBefore(streams.entry(entryId), done.right.revision)
  return E.right({ deleted: true as const, id: entryId, position: done.right.position })
}
