import * as t from 'io-ts'

// The events of an entry's stream and the shapes they carry (the decider is ./entry.ts).

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
    // title, the log position it was created at, and the revision of its first content (versions
    // are counted from it).
    t.partial({ title: t.string, createdPosition: t.number, firstContentRevision: t.number }),
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

/** Whether an event gives the entry text to search (its first such event's revision is the entry's version 1). */
export const fillsContent = (e: EntryEvent) =>
  (e.type === 'EntryCreated' && e.data.chunks.length > 0) ||
  e.type === 'EntryContentProcessed' ||
  (e.type === 'EntryUpdated' && e.data.changes.content !== undefined)
