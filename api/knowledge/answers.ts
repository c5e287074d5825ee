import * as t from 'io-ts'
import { AnyObject, AsOf, Deletion, Pagination } from '../answers'
import * as c from '../codecs'

// What the knowledge routes answer, as io-ts codecs: each answer is encoded by its codec, and the
// OpenAPI document describes it from the same codec.

const d = c.described

export const SyncConfig = c.object(
  {
    enabled: t.boolean,
    intervalHours: t.number,
    lastSyncAt: t.union([t.string, t.null]),
    nextSyncAt: t.union([t.string, t.null]),
    status: d(t.string, 'idle, pending, syncing, completed or failed'),
  },
  { error: t.string, sourceUrl: t.union([t.string, t.null]) },
)

export const StorageInfo = c.object(
  { fileName: t.string, mimeType: t.string, size: t.number, sha256: d(t.string, "SHA-256 (hex) of the file's bytes") },
  { charset: t.string },
)

export const Entry = c.object(
  {
    id: t.string,
    workspaceId: t.string,
    title: t.string,
    source: t.string,
    metadata: AnyObject,
    externalReferenceIds: t.record(t.string, t.string),
    isEnabled: t.boolean,
    tokenCount: t.number,
    processingStatus: d(t.string, 'pending, processing, completed or failed'),
    processingProgress: t.number,
    citedCount: t.number,
    freshness: d(t.string, 'current, stale or unknown'),
    createdBy: t.string,
    createdAt: t.string,
    updatedAt: t.string,
  },
  {
    content: d(t.string, 'Left out of a list asked with includeContent=false'),
    searchableText: d(t.string, 'Left out of a list asked with includeContent=false'),
    folderId: t.string,
    storageInfo: StorageInfo,
    syncConfig: SyncConfig,
    taskId: t.string,
    verified: c.object({ at: t.string, by: t.union([t.string, t.null]) }),
    failure: d(
      c.object({ reason: t.string, taskId: t.string, at: t.string }),
      "Why the entry's latest processing failed: present while processingStatus is failed",
    ),
    asOf: AsOf,
  },
  'an entry',
)

/** What a write answers when the read models had not reached it within the wait (`x-read-models-lag`). */
const NotYetRead = c.object({ id: t.string }, { processingStatus: t.string }, 'an entry not yet read back')

/** An entry after a write: the entry, or only its id where the read models lag behind. */
export const WrittenEntry = t.union([Entry, NotYetRead])

/** What remains of an entry deleted since the moment asked for. */
const EntryTombstone = c.object({ id: t.string, title: t.union([t.string, t.null]), deleted: Deletion })

/** One entry, or (as of a past moment) what remains of it where it was deleted since. */
export const EntryRead = t.union([
  Entry,
  c.object({ id: t.string, title: t.union([t.string, t.null]), deleted: Deletion, asOf: AsOf, message: t.string }),
])

export const EntryList = c.object(
  { items: t.array(Entry), total: t.number, pagination: Pagination },
  { asOf: AsOf, deleted: d(t.array(EntryTombstone), 'As of a past moment: the entries deleted since') },
)

export const Chunks = c.object({
  items: t.array(
    c.object({ index: t.number, content: t.string, start: t.number, end: t.number, tokenCount: t.number }),
  ),
})

export const Deleted = c.object({ deleted: t.literal(true), id: t.string })

export const Moved = t.union([
  c.object({ id: t.string, folderId: t.union([t.string, t.null]), previousFolderId: t.union([t.string, t.null]) }),
  Entry,
])

export const Folder = c.object(
  {
    id: t.string,
    workspaceId: t.string,
    name: t.string,
    documentCount: t.number,
    createdAt: t.string,
    updatedAt: t.string,
  },
  { description: t.string, color: t.string, icon: t.string },
  'a folder',
)
export const WrittenFolder = t.union([Folder, c.object({ id: t.string })])
export const FolderList = c.object({ folders: t.array(Folder) })
export const FolderDeleted = c.object({ deleted: t.literal(true), id: t.string, movedToRoot: t.number })

export const Task = c.object(
  {
    id: t.string,
    status: d(t.string, 'pending, processing, completed or failed'),
    progress: t.number,
    entryId: t.string,
    kind: d(t.string, 'ingest or sync'),
    createdAt: t.string,
  },
  {
    currentStep: t.string,
    documentId: t.string,
    result: c.object(
      { chunkCount: t.number, wordCount: t.number, characterCount: t.number, processingTimeMs: t.number },
      {
        warnings: d(
          t.array(t.string),
          'what of the document gave no text, each with why (a scanned page OCR could not read); the rest went in',
        ),
      },
    ),
    error: t.union([t.string, t.null]),
    startedAt: t.string,
    completedAt: t.string,
  },
  'a processing task',
)
export const TaskList = c.object({ tasks: t.array(Task), total: t.number })

/** A queued task's answer (201 for a new entry, 202 for a sync). */
export const Queued = c.object(
  { status: d(t.string, 'pending; unchanged for a sync already pending or running'), message: t.string },
  { taskId: t.string, documentId: t.string },
)

export const Config = c.object({
  config: c.object({
    enabled: t.boolean,
    maxDocuments: t.number,
    retentionDays: t.number,
    freshnessDays: t.number,
    maxFileSize: t.number,
    allowedFileTypes: t.array(t.string),
    ingestion: c.object({ chunkSize: t.number, chunkOverlap: t.number, autoEmbed: t.boolean }),
    search: c.object({
      defaultMode: c.Mode,
      defaultLimit: t.number,
      minScore: t.number,
      fusion: t.string,
      rerank: d(
        c.object({ enabled: t.boolean, model: t.string, candidates: t.number }),
        'Reranking of the best results by the model served at RERANK_URL (off by default)',
      ),
    }),
    verification: c.object({ enabled: t.boolean }),
    currentDocumentCount: t.number,
  }),
})

export const Stats = c.object({
  stats: c.object({
    totalDocuments: t.number,
    totalChunks: t.number,
    storageBytes: d(t.union([t.number, t.string]), 'Bytes of content and stored files'),
    bySource: t.record(t.string, t.number),
    byFolder: t.array(c.object({ folderId: t.union([t.string, t.null]), name: t.string, count: t.number })),
    recentActivity: c.object({ documentsAdded24h: t.number, documentsUpdated24h: t.number, searchesLast24h: t.number }),
  }),
})
