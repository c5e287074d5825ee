import * as E from 'fp-ts/Either'
import { type Decider, fail, assertNever } from '../shared'

import {
  type Chunking,
  type CrawlOptions,
  type EntryContentProcessed,
  type EntryCreated,
  type EntryDeleted,
  EntryEvent,
  type EntryMetadata,
  type EntryMetadataReplaced,
  type EntryProcessingFailed,
  type EntrySyncConfigured,
  type EntrySyncRequested,
  type EntrySyncUnchanged,
  type EntryUpdated,
  type EntryVerified,
  type StorageInfo,
  type SyncSettings,
  fillsContent,
} from './entryEvents'

export * from './entryEvents'

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
  /** An untitled upload's title from its document, unless the entry was renamed since it was named `provisional`. */
  | { type: 'TitleFromDocument'; data: Scoped<{ entryId: string; provisional: string; title: string }> }

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
      /** The revision of the last event folded (the stream's revisions count from 0). */
      revision: number
      /** The revision of the entry's first content: its versions count from it. */
      firstContentRevision?: number
    }

/** Equal as JSON whatever the order of the keys. */
const sameJson = (a: object, b: object) => {
  const sorted = (o: object) =>
    JSON.stringify(Object.fromEntries(Object.entries(o).sort(([x], [y]) => (x < y ? -1 : 1))))
  return sorted(a) === sorted(b)
}

/** The state after an event, counting its revision and noting the first that gave the entry content. */
const evolveCounted = (state: EntryState, event: EntryEvent): EntryState => {
  const after = evolveEntry(state, event)
  if (after.status !== 'active') return after
  const revision = state.status === 'active' ? state.revision + 1 : 0
  const first = after.firstContentRevision ?? (fillsContent(event) ? revision : undefined)
  return { ...after, revision, ...(first !== undefined ? { firstContentRevision: first } : {}) }
}

const evolveEntry = (state: EntryState, event: EntryEvent): EntryState => {
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
      revision: 0,
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
}

export const entry: Decider<EntryCommand, EntryEvent, EntryState> = {
  events: EntryEvent,
  initialState: () => ({ status: 'none' }),
  evolve: evolveCounted,
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
        // Verifying says "this content is right": an entry without content has nothing to vouch for.
        if (state.content === '')
          return fail('VALIDATION_ERROR', 'the entry has no content to verify', [
            state.pendingTaskId
              ? `id: the entry has no content yet (task ${state.pendingTaskId} is filling it); verify it once it has`
              : 'id: the entry has no content: its processing failed',
          ])
        const { workspaceId: _, ...data } = command.data
        return E.right([{ type: 'EntryVerified', data }])
      }
      case 'DeleteEntry':
        // The tombstone keeps what a rebuild needs once the stream is cut: the title, and where
        // the entry's versions count from.
        return E.right([
          {
            type: 'EntryDeleted',
            data: {
              ...command.data,
              title: state.title,
              ...(state.firstContentRevision !== undefined ? { firstContentRevision: state.firstContentRevision } : {}),
            },
          },
        ])
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
      case 'TitleFromDocument': {
        const { entryId, provisional, title } = command.data
        if (state.title !== provisional || title === state.title) return E.right([])
        return E.right([{ type: 'EntryUpdated', data: { entryId, changes: { title } } }])
      }
      case 'ReplaceEntryMetadata': {
        const { workspaceId: _, ...data } = command.data
        return E.right(sameJson(state.metadata, data.metadata) ? [] : [{ type: 'EntryMetadataReplaced', data }])
      }
      default:
        return assertNever(command)
    }
  },
}
