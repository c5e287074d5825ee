import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail, assertNever } from '../shared'

export const EntryMetadata = t.partial({ category: t.string, tags: t.array(t.string), author: t.string })
export type EntryMetadata = t.TypeOf<typeof EntryMetadata>

export const Chunking = t.type({ chunkSizeTokens: t.number, overlapTokens: t.number, preserveSentences: t.boolean })
export type Chunking = t.TypeOf<typeof Chunking>

/** How the content was cut, decided once by the command: projections replay it, never re-chunk. */
export const ChunkSpans = t.array(
  t.intersection([t.type({ start: t.number, end: t.number, tokenCount: t.number }), t.partial({ pageUrl: t.string })]),
)
export type ChunkSpans = t.TypeOf<typeof ChunkSpans>

export const CrawlOptions = t.type({ depth: t.number, maxPages: t.number, sameDomainOnly: t.boolean })
export type CrawlOptions = t.TypeOf<typeof CrawlOptions>
/** An upload as stored: by content hash under DATA_DIR/blobs, never under the client's name. */
export const StorageInfo = t.intersection([
  t.type({ blob: t.string, fileName: t.string, mimeType: t.string, size: t.number }),
  // The encoding a text file was declared in, when not UTF-8 (its part's Content-Type charset).
  t.partial({ charset: t.string }),
])
export type StorageInfo = t.TypeOf<typeof StorageInfo>
export const SyncSettings = t.type({ enabled: t.boolean, intervalHours: t.number })
export type SyncSettings = t.TypeOf<typeof SyncSettings>

/** URL and file entries are created empty, with the task that fills them (`taskId`). */
const Processed = t.partial({
  taskId: t.string,
  storage: StorageInfo,
  sourceUrl: t.string,
  crawl: CrawlOptions,
  sync: SyncSettings,
})

export const EntryCreated = t.type({
  type: t.literal('EntryCreated'),
  data: t.intersection([
    t.type({
      entryId: t.string,
      workspaceId: t.string,
      title: t.string,
      content: t.string,
      source: t.string,
      metadata: EntryMetadata,
      externalReferenceIds: t.record(t.string, t.string),
      folderId: t.union([t.string, t.null]),
      isEnabled: t.boolean,
      chunking: Chunking,
      /** Whether chunks get vectors (the workspace's ingestion.autoEmbed when written). */
      embed: t.boolean,
      tokenCount: t.number,
      chunks: ChunkSpans,
      createdBy: t.string,
    }),
    Processed,
  ]),
})
export type EntryCreated = t.TypeOf<typeof EntryCreated>

// A content change carries its token count and chunk spans with it.
const Changes = t.partial({
  title: t.string,
  content: t.string,
  tokenCount: t.number,
  chunks: ChunkSpans,
  metadata: EntryMetadata,
  isEnabled: t.boolean,
})
export const EntryUpdated = t.type({
  type: t.literal('EntryUpdated'),
  data: t.type({ entryId: t.string, changes: Changes }),
})
export type EntryUpdated = t.TypeOf<typeof EntryUpdated>
export const EntryMoved = t.type({
  type: t.literal('EntryMoved'),
  data: t.type({
    entryId: t.string,
    folderId: t.union([t.string, t.null]),
    previousFolderId: t.union([t.string, t.null]),
  }),
})
export type EntryMoved = t.TypeOf<typeof EntryMoved>
export const EntryVerified = t.type({
  type: t.literal('EntryVerified'),
  data: t.type({ entryId: t.string, at: t.string, by: t.string }),
})
export type EntryVerified = t.TypeOf<typeof EntryVerified>
/** The tombstone: after it the stream keeps only this event (its content is cut from the store). */
export const EntryDeleted = t.type({
  type: t.literal('EntryDeleted'),
  data: t.intersection([
    t.type({ entryId: t.string, workspaceId: t.string, deletedBy: t.string, at: t.string }),
    // What remains of the entry once its stream is cut to this event (older events have none): its
    // title, and the log position it was created at.
    t.partial({ title: t.string, createdPosition: t.number }),
  ]),
})
export type EntryDeleted = t.TypeOf<typeof EntryDeleted>

/** A task's outcome on its entry; `contentHash` is the SHA-256 of what was fetched or uploaded. */
export const EntryContentProcessed = t.type({
  type: t.literal('EntryContentProcessed'),
  data: t.type({
    entryId: t.string,
    taskId: t.string,
    content: t.string,
    tokenCount: t.number,
    chunks: ChunkSpans,
    contentHash: t.string,
    sync: t.boolean,
  }),
})
export type EntryContentProcessed = t.TypeOf<typeof EntryContentProcessed>
export const EntrySyncUnchanged = t.type({
  type: t.literal('EntrySyncUnchanged'),
  data: t.type({ entryId: t.string, taskId: t.string }),
})
export type EntrySyncUnchanged = t.TypeOf<typeof EntrySyncUnchanged>
export const EntryProcessingFailed = t.type({
  type: t.literal('EntryProcessingFailed'),
  data: t.type({ entryId: t.string, taskId: t.string, error: t.string, sync: t.boolean }),
})
export type EntryProcessingFailed = t.TypeOf<typeof EntryProcessingFailed>
export const EntrySyncRequested = t.type({
  type: t.literal('EntrySyncRequested'),
  data: t.type({ entryId: t.string, taskId: t.string }),
})
export type EntrySyncRequested = t.TypeOf<typeof EntrySyncRequested>
export const EntrySyncConfigured = t.type({
  type: t.literal('EntrySyncConfigured'),
  data: t.type({ entryId: t.string, settings: SyncSettings }),
})
export type EntrySyncConfigured = t.TypeOf<typeof EntrySyncConfigured>
/** The metadata set whole (an undo's restore), where an update merges the keys it names. */
export const EntryMetadataReplaced = t.type({
  type: t.literal('EntryMetadataReplaced'),
  data: t.type({ entryId: t.string, metadata: EntryMetadata }),
})
export type EntryMetadataReplaced = t.TypeOf<typeof EntryMetadataReplaced>

export const EntryEvent = t.union([
  EntryCreated,
  EntryUpdated,
  EntryMoved,
  EntryVerified,
  EntryDeleted,
  EntryContentProcessed,
  EntrySyncUnchanged,
  EntryProcessingFailed,
  EntrySyncRequested,
  EntrySyncConfigured,
  EntryMetadataReplaced,
])
export type EntryEvent = t.TypeOf<typeof EntryEvent>

type Scoped<D> = D & { workspaceId: string }
export type EntryCommand =
  | { type: 'CreateEntry'; data: EntryCreated['data'] }
  | { type: 'UpdateEntry'; data: Scoped<EntryUpdated['data']> }
  | { type: 'MoveEntry'; data: Scoped<{ entryId: string; folderId: string | null }> }
  | { type: 'VerifyEntry'; data: Scoped<EntryVerified['data']> }
  | { type: 'DeleteEntry'; data: EntryDeleted['data'] }
  | { type: 'ProcessContent'; data: Scoped<EntryContentProcessed['data']> }
  | { type: 'KeepUnchanged'; data: Scoped<EntrySyncUnchanged['data']> }
  | { type: 'FailProcessing'; data: Scoped<EntryProcessingFailed['data']> }
  | { type: 'RequestSync'; data: Scoped<EntrySyncRequested['data']> }
  | { type: 'ConfigureSync'; data: Scoped<EntrySyncConfigured['data']> }
  | { type: 'ReplaceEntryMetadata'; data: Scoped<EntryMetadataReplaced['data']> }

export type EntryState =
  | { status: 'none' }
  | { status: 'deleted' }
  | {
      status: 'active'
      workspaceId: string
      folderId: string | null
      title: string
      content: string
      metadata: EntryMetadata
      isEnabled: boolean
      chunking: Chunking
      embed: boolean
      /** The task that is filling or syncing the entry; another sync waits for it. */
      pendingTaskId: string | null
      sourceUrl?: string
      crawl?: CrawlOptions
      storage?: StorageInfo
      sync?: SyncSettings
      contentHash?: string
    }

/** Equal as JSON whatever the order of the keys. */
const sameJson = (a: object, b: object) => {
  const sorted = (o: object) =>
    JSON.stringify(Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))))
  return sorted(a) === sorted(b)
}

export const entry: Decider<EntryCommand, EntryEvent, EntryState> = {
  events: EntryEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'EntryDeleted') return { status: 'deleted' }
    if (event.type === 'EntryCreated') {
      const d = event.data
      return {
        status: 'active',
        workspaceId: d.workspaceId,
        folderId: d.folderId,
        title: d.title,
        content: d.content,
        metadata: d.metadata,
        isEnabled: d.isEnabled,
        chunking: d.chunking,
        embed: d.embed,
        pendingTaskId: d.taskId ?? null,
        sourceUrl: d.sourceUrl,
        crawl: d.crawl,
        storage: d.storage,
        sync: d.sync,
      }
    }
    if (state.status !== 'active') return state
    switch (event.type) {
      case 'EntryUpdated': {
        const { tokenCount: _t, chunks: _c, ...c } = event.data.changes
        return { ...state, ...c, metadata: { ...state.metadata, ...c.metadata } }
      }
      case 'EntryMoved':
        return { ...state, folderId: event.data.folderId }
      case 'EntryVerified':
        return state
      case 'EntryContentProcessed':
        return { ...state, content: event.data.content, contentHash: event.data.contentHash, pendingTaskId: null }
      case 'EntrySyncUnchanged':
      case 'EntryProcessingFailed':
        return { ...state, pendingTaskId: null }
      case 'EntrySyncRequested':
        return { ...state, pendingTaskId: event.data.taskId }
      case 'EntrySyncConfigured':
        return { ...state, sync: event.data.settings }
      case 'EntryMetadataReplaced':
        return { ...state, metadata: event.data.metadata }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreateEntry') {
      if (state.status !== 'none') return fail('CONFLICT', 'the entry already exists')
      return E.right([{ type: 'EntryCreated', data: command.data }])
    }
    // Another workspace's entry is indistinguishable from a missing one.
    if (state.status !== 'active' || state.workspaceId !== command.data.workspaceId)
      return fail('NOT_FOUND', 'knowledge entry not found')
    switch (command.type) {
      case 'UpdateEntry': {
        const { workspaceId: _, ...data } = command.data
        const { tokenCount: _t, chunks: _c, ...c } = data.changes
        // The task filling the entry would overwrite the new content when it lands.
        if (c.content !== undefined && c.content !== state.content && state.pendingTaskId) {
          return fail(
            'CONFLICT',
            `the entry's content is being processed by task ${state.pendingTaskId}; change it once that task has ` +
              `finished`,
          )
        }
        const metadata = { ...state.metadata, ...c.metadata }
        const same =
          (c.title === undefined || c.title === state.title) &&
          (c.content === undefined || c.content === state.content) &&
          (c.isEnabled === undefined || c.isEnabled === state.isEnabled) &&
          JSON.stringify(metadata) === JSON.stringify(state.metadata)
        return E.right(same ? [] : [{ type: 'EntryUpdated', data }])
      }
      case 'MoveEntry':
        if (state.folderId === command.data.folderId) return E.right([])
        return E.right([
          {
            type: 'EntryMoved',
            data: { entryId: command.data.entryId, folderId: command.data.folderId, previousFolderId: state.folderId },
          },
        ])
      case 'VerifyEntry': {
        const { workspaceId: _, ...data } = command.data
        return E.right([{ type: 'EntryVerified', data }])
      }
      case 'DeleteEntry':
        return E.right([{ type: 'EntryDeleted', data: { ...command.data, title: state.title } }])
      // A task's outcome lands once: a redelivered job finds its task no longer pending here.
      case 'ProcessContent': {
        const { workspaceId: _, ...data } = command.data
        return E.right(state.pendingTaskId === data.taskId ? [{ type: 'EntryContentProcessed', data }] : [])
      }
      case 'KeepUnchanged': {
        const { workspaceId: _, ...data } = command.data
        return E.right(state.pendingTaskId === data.taskId ? [{ type: 'EntrySyncUnchanged', data }] : [])
      }
      case 'FailProcessing': {
        const { workspaceId: _, ...data } = command.data
        return E.right(state.pendingTaskId === data.taskId ? [{ type: 'EntryProcessingFailed', data }] : [])
      }
      case 'RequestSync':
        if (!state.sourceUrl)
          return fail('VALIDATION_ERROR', 'the request is not valid', ['id: the entry has no URL to sync'])
        // A sync already pending or running: this one is satisfied by it ("unchanged").
        if (state.pendingTaskId) return E.right([])
        return E.right([
          { type: 'EntrySyncRequested', data: { entryId: command.data.entryId, taskId: command.data.taskId } },
        ])
      case 'ConfigureSync':
        if (!state.sourceUrl)
          return fail('VALIDATION_ERROR', 'the request is not valid', ['id: the entry has no URL to sync'])
        if (JSON.stringify(state.sync) === JSON.stringify(command.data.settings)) return E.right([])
        return E.right([
          { type: 'EntrySyncConfigured', data: { entryId: command.data.entryId, settings: command.data.settings } },
        ])
      case 'ReplaceEntryMetadata': {
        const { workspaceId: _, ...data } = command.data
        return E.right(sameJson(state.metadata, data.metadata) ? [] : [{ type: 'EntryMetadataReplaced', data }])
      }
      default:
        return assertNever(command)
    }
  },
}
