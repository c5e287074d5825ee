import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail } from './shared'

export const EntryMetadata = t.partial({ category: t.string, tags: t.array(t.string), author: t.string })
export type EntryMetadata = t.TypeOf<typeof EntryMetadata>

export const Chunking = t.type({ chunkSizeTokens: t.number, overlapTokens: t.number, preserveSentences: t.boolean })
export type Chunking = t.TypeOf<typeof Chunking>

/** How the content was cut, decided once by the command: projections replay it, never re-chunk. */
export const ChunkSpans = t.array(t.type({ start: t.number, end: t.number, tokenCount: t.number }))
export type ChunkSpans = t.TypeOf<typeof ChunkSpans>

export const EntryCreated = t.type({
  type: t.literal('EntryCreated'),
  data: t.type({
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
})
export type EntryCreated = t.TypeOf<typeof EntryCreated>

// A content change carries its token count and chunk spans with it.
const Changes = t.partial({ title: t.string, content: t.string, tokenCount: t.number, chunks: ChunkSpans, metadata: EntryMetadata, isEnabled: t.boolean })
export const EntryUpdated = t.type({ type: t.literal('EntryUpdated'), data: t.type({ entryId: t.string, changes: Changes }) })
export type EntryUpdated = t.TypeOf<typeof EntryUpdated>
export const EntryMoved = t.type({
  type: t.literal('EntryMoved'),
  data: t.type({ entryId: t.string, folderId: t.union([t.string, t.null]), previousFolderId: t.union([t.string, t.null]) }),
})
export type EntryMoved = t.TypeOf<typeof EntryMoved>
export const EntryVerified = t.type({ type: t.literal('EntryVerified'), data: t.type({ entryId: t.string, at: t.string, by: t.string }) })
export type EntryVerified = t.TypeOf<typeof EntryVerified>
/** The tombstone: after it the stream keeps only this event (DESIGN.md: content cut from the store). */
export const EntryDeleted = t.type({
  type: t.literal('EntryDeleted'),
  data: t.type({ entryId: t.string, workspaceId: t.string, deletedBy: t.string, at: t.string }),
})
export type EntryDeleted = t.TypeOf<typeof EntryDeleted>

export const EntryEvent = t.union([EntryCreated, EntryUpdated, EntryMoved, EntryVerified, EntryDeleted])
export type EntryEvent = t.TypeOf<typeof EntryEvent>

type Scoped<D> = D & { workspaceId: string }
export type EntryCommand =
  | { type: 'CreateEntry'; data: EntryCreated['data'] }
  | { type: 'UpdateEntry'; data: Scoped<EntryUpdated['data']> }
  | { type: 'MoveEntry'; data: Scoped<{ entryId: string; folderId: string | null }> }
  | { type: 'VerifyEntry'; data: Scoped<EntryVerified['data']> }
  | { type: 'DeleteEntry'; data: EntryDeleted['data'] }

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
    }

export const entry: Decider<EntryCommand, EntryEvent, EntryState> = {
  events: EntryEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    if (event.type === 'EntryDeleted') return { status: 'deleted' }
    if (event.type === 'EntryCreated') {
      const d = event.data
      return {
        status: 'active', workspaceId: d.workspaceId, folderId: d.folderId, title: d.title, content: d.content,
        metadata: d.metadata, isEnabled: d.isEnabled, chunking: d.chunking, embed: d.embed,
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
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreateEntry') {
      if (state.status !== 'none') return fail('CONFLICT', 'the entry already exists')
      return E.right([{ type: 'EntryCreated', data: command.data }])
    }
    // Another workspace's entry is indistinguishable from a missing one.
    if (state.status !== 'active' || state.workspaceId !== command.data.workspaceId) return fail('NOT_FOUND', 'knowledge entry not found')
    switch (command.type) {
      case 'UpdateEntry': {
        const { workspaceId: _, ...data } = command.data
        const { tokenCount: _t, chunks: _c, ...c } = data.changes
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
        return E.right([{ type: 'EntryMoved', data: { entryId: command.data.entryId, folderId: command.data.folderId, previousFolderId: state.folderId } }])
      case 'VerifyEntry': {
        const { workspaceId: _, ...data } = command.data
        return E.right([{ type: 'EntryVerified', data }])
      }
      case 'DeleteEntry':
        return E.right([{ type: 'EntryDeleted', data: command.data }])
    }
  },
}
