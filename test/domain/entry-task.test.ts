import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as E from 'fp-ts/Either'
import {
  type EntryCommand,
  type EntryContentProcessed,
  type EntryCreated,
  type EntryEvent,
  entry,
} from '../../domain/entry'
import type { Decider } from '../../domain/shared'
import { MAX_ATTEMPTS, type TaskCommand, type TaskEvent, type TaskQueued, task } from '../../domain/task'

// given(events).when(command) -> events or an error code
const given = <C, Ev, S>(d: Decider<C, Ev, S>, events: NoInfer<Ev>[]) => ({
  when: (command: C) => {
    const result = d.decide(command, events.reduce(d.evolve, d.initialState()))
    return E.isLeft(result) ? { error: result.left.code } : { events: result.right }
  },
})

const test = suite('entry and task deciders')

// ---------------------------------------------------------------------------------------------------------------
// entry

const WS = 'ws-1'
const OTHER_WS = 'ws-2'
const ENTRY = 'entry-1'
const T0 = '2026-01-01T00:00:00.000Z'
const T1 = '2026-01-02T00:00:00.000Z'
const chunking = { chunkSizeTokens: 512, overlapTokens: 64, preserveSentences: true }
const spans = [{ start: 0, end: 11, tokenCount: 3 }]

/** A text entry: written with its content, no task fills it. */
const createdText: EntryCreated = {
  type: 'EntryCreated',
  data: {
    entryId: ENTRY,
    workspaceId: WS,
    title: 'Refund policy',
    content: 'Hello world',
    source: 'manual',
    metadata: { category: 'policy', tags: ['billing'] },
    externalReferenceIds: { zendesk: 'z-1' },
    folderId: 'folder-a',
    isEnabled: true,
    chunking,
    embed: true,
    tokenCount: 3,
    chunks: spans,
    createdBy: 'user-1',
  },
}

/** A URL entry: created empty, filled by task-1. */
const createdUrl: EntryCreated = {
  type: 'EntryCreated',
  data: {
    entryId: ENTRY,
    workspaceId: WS,
    title: 'Docs home',
    content: '',
    source: 'url',
    metadata: {},
    externalReferenceIds: {},
    folderId: null,
    isEnabled: true,
    chunking,
    embed: false,
    tokenCount: 0,
    chunks: [],
    createdBy: 'user-1',
    taskId: 'task-1',
    sourceUrl: 'https://example.com/docs',
    crawl: { depth: 0, maxPages: 1, sameDomainOnly: true },
    sync: { enabled: true, intervalHours: 24 },
  },
}

const processed = (taskId: string): EntryContentProcessed => ({
  type: 'EntryContentProcessed',
  data: {
    entryId: ENTRY,
    taskId,
    content: 'Fetched page',
    tokenCount: 2,
    chunks: [{ start: 0, end: 12, tokenCount: 2, pageUrl: 'https://example.com/docs' }],
    contentHash: 'sha256-aaa',
    sync: false,
  },
})

const deleted: EntryEvent = {
  type: 'EntryDeleted',
  data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1 },
}

/** Every command but CreateEntry, each valid against an active URL entry of WS. */
const commandsOn = (workspaceId: string): EntryCommand[] => [
  { type: 'UpdateEntry', data: { workspaceId, entryId: ENTRY, changes: { title: 'New title' } } },
  { type: 'MoveEntry', data: { workspaceId, entryId: ENTRY, folderId: 'folder-b' } },
  { type: 'VerifyEntry', data: { workspaceId, entryId: ENTRY, at: T1, by: 'user-2' } },
  { type: 'DeleteEntry', data: { workspaceId, entryId: ENTRY, deletedBy: 'user-1', at: T1 } },
  {
    type: 'ProcessContent',
    data: {
      workspaceId,
      entryId: ENTRY,
      taskId: 'task-1',
      content: 'x',
      tokenCount: 1,
      chunks: [],
      contentHash: 'h',
      sync: false,
    },
  },
  { type: 'KeepUnchanged', data: { workspaceId, entryId: ENTRY, taskId: 'task-1' } },
  { type: 'FailProcessing', data: { workspaceId, entryId: ENTRY, taskId: 'task-1', error: 'boom', sync: false } },
  { type: 'RequestSync', data: { workspaceId, entryId: ENTRY, taskId: 'task-2' } },
  { type: 'ConfigureSync', data: { workspaceId, entryId: ENTRY, settings: { enabled: false, intervalHours: 6 } } },
  { type: 'ReplaceEntryMetadata', data: { workspaceId, entryId: ENTRY, metadata: { category: 'x' } } },
]

// CreateEntry

test('entry: creating a new entry records EntryCreated with the command data', () => {
  assert.equal(given(entry, []).when({ type: 'CreateEntry', data: createdText.data }), {
    events: [createdText],
  })
  assert.equal(given(entry, []).when({ type: 'CreateEntry', data: createdUrl.data }), {
    events: [createdUrl],
  })
})

test('entry: creating an entry that exists is CONFLICT', () => {
  assert.equal(given(entry, [createdText]).when({ type: 'CreateEntry', data: createdText.data }), {
    error: 'CONFLICT',
  })
})

test('entry: creating an entry over a deleted one is CONFLICT (an id is never reused)', () => {
  assert.equal(given(entry, [createdText, deleted]).when({ type: 'CreateEntry', data: createdText.data }), {
    error: 'CONFLICT',
  })
})

// Every other command on a missing, deleted or foreign entry

test('entry: every command on an entry that was never created is NOT_FOUND', () => {
  for (const command of commandsOn(WS))
    assert.equal(given(entry, []).when(command), { error: 'NOT_FOUND' }, command.type)
})

test('entry: every command on a deleted entry is NOT_FOUND', () => {
  for (const command of commandsOn(WS))
    assert.equal(given(entry, [createdUrl, deleted]).when(command), { error: 'NOT_FOUND' }, command.type)
})

test("entry: every command on another workspace's entry is NOT_FOUND", () => {
  for (const command of commandsOn(OTHER_WS))
    assert.equal(given(entry, [createdUrl]).when(command), { error: 'NOT_FOUND' }, command.type)
  // The same commands in the entry's own workspace are not refused as missing.
  for (const command of commandsOn(WS))
    assert.not.equal(given(entry, [createdUrl]).when(command), { error: 'NOT_FOUND' }, command.type)
})

// ReplaceEntryMetadata (an undo restores metadata whole: keys added since are removed)

test('entry: replacing the metadata records it whole; the state then holds exactly it', () => {
  const tagged: EntryEvent = {
    type: 'EntryUpdated',
    data: { entryId: ENTRY, changes: { metadata: { tags: ['spam'], author: 'mallory' } } },
  }
  const before = { category: 'policy' }
  const replaced = { type: 'EntryMetadataReplaced' as const, data: { entryId: ENTRY, metadata: before } }
  const command = { type: 'ReplaceEntryMetadata' as const, data: { workspaceId: WS, entryId: ENTRY, metadata: before } }
  const base = { ...createdText, data: { ...createdText.data, metadata: before } }
  assert.equal(given(entry, [base, tagged]).when(command), { events: [replaced] })
  const state = [base, tagged, replaced].reduce(entry.evolve, entry.initialState())
  assert.equal(state.status === 'active' && state.metadata, before)
})

test('entry: replacing the metadata with what it already is records nothing', () => {
  const base = { ...createdText, data: { ...createdText.data, metadata: { category: 'policy', tags: ['a'] } } }
  assert.equal(
    given(entry, [base]).when({
      type: 'ReplaceEntryMetadata',
      data: { workspaceId: WS, entryId: ENTRY, metadata: { tags: ['a'], category: 'policy' } },
    }),
    { events: [] },
  )
})

// UpdateEntry

test('entry: changing the title records EntryUpdated without the workspace id', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { title: 'Refund policy v2' } },
    }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'Refund policy v2' } } }] },
  )
})

test('entry: changing the content records it with its token count and chunk spans', () => {
  const changes = { content: 'Hello there, world', tokenCount: 4, chunks: [{ start: 0, end: 18, tokenCount: 4 }] }
  assert.equal(
    given(entry, [createdText]).when({ type: 'UpdateEntry', data: { workspaceId: WS, entryId: ENTRY, changes } }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes } }] },
  )
})

test('entry: disabling an entry records EntryUpdated', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { isEnabled: false } },
    }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { isEnabled: false } } }] },
  )
})

test('entry: changing one metadata field records EntryUpdated', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { metadata: { category: 'faq' } } },
    }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { metadata: { category: 'faq' } } } }] },
  )
})

test('entry: an update that changes nothing records nothing', () => {
  const same = {
    title: 'Refund policy',
    content: 'Hello world',
    isEnabled: true,
    metadata: { category: 'policy', tags: ['billing'] },
  }
  const update = (changes: object): EntryCommand => ({
    type: 'UpdateEntry',
    data: { workspaceId: WS, entryId: ENTRY, changes },
  })
  assert.equal(given(entry, [createdText]).when(update(same)), { events: [] })
  assert.equal(given(entry, [createdText]).when(update({})), { events: [] })
})

test('entry: metadata already held (a subset of it) is no change', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { metadata: { tags: ['billing'] } } },
    }),
    { events: [] },
  )
})

test('entry: new token counts or spans without new content are no change', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'Hello world', tokenCount: 99, chunks: [] } },
    }),
    { events: [] },
  )
})

test('entry: an applied update is the new state (setting it again is no change, the old value is)', () => {
  const updated: EntryEvent = {
    type: 'EntryUpdated',
    data: { entryId: ENTRY, changes: { title: 'T2', metadata: { author: 'ann' }, isEnabled: false } },
  }
  const update = (changes: object) =>
    given(entry, [createdText, updated]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes },
    })
  assert.equal(update({ title: 'T2', isEnabled: false }), { events: [] })
  // The metadata was merged, not replaced: the fields from creation are still there.
  assert.equal(update({ metadata: { category: 'policy', tags: ['billing'], author: 'ann' } }), { events: [] })
  assert.equal(update({ title: 'Refund policy' }), {
    events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'Refund policy' } } }],
  })
})

test('entry: changing the content while a task fills the entry is CONFLICT', () => {
  assert.equal(
    given(entry, [createdUrl]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    }),
    { error: 'CONFLICT' },
  )
  const r = entry.decide(
    { type: 'UpdateEntry', data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } } },
    entry.evolve(entry.initialState(), createdUrl),
  )
  assert.ok(E.isLeft(r) && r.left.message.includes('task-1'), 'the message names the pending task')
})

test('entry: while a task fills the entry, its title can change and its unchanged content is no change', () => {
  assert.equal(
    given(entry, [createdUrl]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { title: 'Docs' } },
    }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'Docs' } } }] },
  )
  assert.equal(
    given(entry, [createdUrl]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: '' } },
    }),
    { events: [] },
  )
})

test('entry: once the task has landed, the content can change', () => {
  assert.equal(
    given(entry, [createdUrl, processed('task-1')]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { content: 'typed by hand' } } }] },
  )
  // The processed content is the entry's content now.
  assert.equal(
    given(entry, [createdUrl, processed('task-1')]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'Fetched page' } },
    }),
    { events: [] },
  )
})

// MoveEntry

test('entry: moving to another folder records EntryMoved with the previous folder', () => {
  assert.equal(
    given(entry, [createdText]).when({ type: 'MoveEntry', data: { workspaceId: WS, entryId: ENTRY, folderId: null } }),
    { events: [{ type: 'EntryMoved', data: { entryId: ENTRY, folderId: null, previousFolderId: 'folder-a' } }] },
  )
  assert.equal(
    given(entry, [createdUrl]).when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-b' },
    }),
    { events: [{ type: 'EntryMoved', data: { entryId: ENTRY, folderId: 'folder-b', previousFolderId: null } }] },
  )
})

test('entry: moving to the folder it is in records nothing', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-a' },
    }),
    { events: [] },
  )
  const moved: EntryEvent = {
    type: 'EntryMoved',
    data: { entryId: ENTRY, folderId: 'folder-b', previousFolderId: 'folder-a' },
  }
  assert.equal(
    given(entry, [createdText, moved]).when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-b' },
    }),
    { events: [] },
  )
  assert.equal(
    given(entry, [createdText, moved]).when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-a' },
    }),
    { events: [{ type: 'EntryMoved', data: { entryId: ENTRY, folderId: 'folder-a', previousFolderId: 'folder-b' } }] },
  )
})

// VerifyEntry

test('entry: verifying records EntryVerified with who and when, without the workspace id', () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'VerifyEntry',
      data: { workspaceId: WS, entryId: ENTRY, at: T1, by: 'user-2' },
    }),
    { events: [{ type: 'EntryVerified', data: { entryId: ENTRY, at: T1, by: 'user-2' } }] },
  )
})

test('entry: verifying a verified entry records the new verification', () => {
  const verified: EntryEvent = { type: 'EntryVerified', data: { entryId: ENTRY, at: T0, by: 'user-2' } }
  assert.equal(
    given(entry, [createdText, verified]).when({
      type: 'VerifyEntry',
      data: { workspaceId: WS, entryId: ENTRY, at: T1, by: 'user-3' },
    }),
    { events: [{ type: 'EntryVerified', data: { entryId: ENTRY, at: T1, by: 'user-3' } }] },
  )
})

// DeleteEntry

test("entry: deleting records the EntryDeleted tombstone with the command data and the entry's title", () => {
  assert.equal(
    given(entry, [createdText]).when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1, createdPosition: 7 },
    }),
    {
      events: [{ type: 'EntryDeleted', data: { ...deleted.data, createdPosition: 7, title: createdText.data.title } }],
    },
  )
})

test('entry: deleting an entry while a task fills it is accepted', () => {
  assert.equal(
    given(entry, [createdUrl]).when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1 },
    }),
    { events: [{ type: 'EntryDeleted', data: { ...deleted.data, title: createdUrl.data.title } }] },
  )
})

test('entry: deleting a deleted entry is NOT_FOUND', () => {
  assert.equal(
    given(entry, [createdText, deleted]).when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1 },
    }),
    { error: 'NOT_FOUND' },
  )
})

// ProcessContent

const processContent = (taskId: string): EntryCommand => {
  return { type: 'ProcessContent', data: { ...processed(taskId).data, workspaceId: WS } }
}

test("entry: the pending task's content lands as EntryContentProcessed, without the workspace id", () => {
  assert.equal(given(entry, [createdUrl]).when(processContent('task-1')), { events: [processed('task-1')] })
})

test('entry: content from a task that is not the pending one records nothing', () => {
  assert.equal(given(entry, [createdUrl]).when(processContent('task-9')), { events: [] })
  // A text entry has no pending task at all.
  assert.equal(given(entry, [createdText]).when(processContent('task-1')), { events: [] })
})

test("entry: a redelivered task's content lands only once", () => {
  assert.equal(given(entry, [createdUrl, processed('task-1')]).when(processContent('task-1')), { events: [] })
})

// KeepUnchanged

const unchanged = (taskId: string): EntryEvent => ({ type: 'EntrySyncUnchanged', data: { entryId: ENTRY, taskId } })
const keepUnchanged = (taskId: string): EntryCommand => ({
  type: 'KeepUnchanged',
  data: { workspaceId: WS, entryId: ENTRY, taskId },
})

test('entry: the pending task finding nothing new records EntrySyncUnchanged', () => {
  assert.equal(given(entry, [createdUrl]).when(keepUnchanged('task-1')), { events: [unchanged('task-1')] })
})

test('entry: keeping unchanged for a task that is not pending records nothing', () => {
  assert.equal(given(entry, [createdUrl]).when(keepUnchanged('task-9')), { events: [] })
  assert.equal(given(entry, [createdUrl, unchanged('task-1')]).when(keepUnchanged('task-1')), { events: [] })
})

// FailProcessing

const failed = (taskId: string): EntryEvent => ({
  type: 'EntryProcessingFailed',
  data: { entryId: ENTRY, taskId, error: 'fetch failed: 404', sync: false },
})
const failProcessing = (taskId: string): EntryCommand => ({
  type: 'FailProcessing',
  data: { workspaceId: WS, entryId: ENTRY, taskId, error: 'fetch failed: 404', sync: false },
})

test("entry: the pending task's failure records EntryProcessingFailed with its error", () => {
  assert.equal(given(entry, [createdUrl]).when(failProcessing('task-1')), { events: [failed('task-1')] })
})

test('entry: a failure of a task that is not pending records nothing', () => {
  assert.equal(given(entry, [createdUrl]).when(failProcessing('task-9')), { events: [] })
  assert.equal(given(entry, [createdUrl, failed('task-1')]).when(failProcessing('task-1')), { events: [] })
  assert.equal(given(entry, [createdUrl, processed('task-1')]).when(failProcessing('task-1')), { events: [] })
})

test('entry: after a failed task the content can be changed by hand', () => {
  assert.equal(
    given(entry, [createdUrl, failed('task-1')]).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    }),
    { events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { content: 'typed by hand' } } }] },
  )
})

// RequestSync

const requestSync = (taskId: string): EntryCommand => ({
  type: 'RequestSync',
  data: { workspaceId: WS, entryId: ENTRY, taskId },
})
const syncRequested = (taskId: string): EntryEvent => ({
  type: 'EntrySyncRequested',
  data: { entryId: ENTRY, taskId },
})

test('entry: requesting a sync of a filled URL entry records EntrySyncRequested', () => {
  assert.equal(given(entry, [createdUrl, processed('task-1')]).when(requestSync('task-2')), {
    events: [syncRequested('task-2')],
  })
  assert.equal(given(entry, [createdUrl, failed('task-1')]).when(requestSync('task-2')), {
    events: [syncRequested('task-2')],
  })
})

test('entry: requesting a sync of an entry without a URL is VALIDATION_ERROR', () => {
  assert.equal(given(entry, [createdText]).when(requestSync('task-2')), { error: 'VALIDATION_ERROR' })
  const r = entry.decide(requestSync('task-2'), entry.evolve(entry.initialState(), createdText))
  assert.equal(E.isLeft(r) && r.left.details, ['id: the entry has no URL to sync'])
})

test('entry: requesting a sync while a task is pending records nothing', () => {
  assert.equal(given(entry, [createdUrl]).when(requestSync('task-2')), { events: [] })
  assert.equal(given(entry, [createdUrl, processed('task-1'), syncRequested('task-2')]).when(requestSync('task-3')), {
    events: [],
  })
})

test('entry: a requested sync becomes the pending task (its outcome lands, the old task is ignored)', () => {
  const history = [createdUrl, processed('task-1'), syncRequested('task-2')]
  assert.equal(given(entry, history).when(keepUnchanged('task-2')), { events: [unchanged('task-2')] })
  assert.equal(given(entry, history).when(keepUnchanged('task-1')), { events: [] })
  assert.equal(
    given(entry, history).when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    }),
    { error: 'CONFLICT' },
  )
  // After the sync finished unchanged, another one can be requested.
  assert.equal(given(entry, [...history, unchanged('task-2')]).when(requestSync('task-3')), {
    events: [syncRequested('task-3')],
  })
})

// ConfigureSync

const configureSync = (settings: { enabled: boolean; intervalHours: number }): EntryCommand => ({
  type: 'ConfigureSync',
  data: { workspaceId: WS, entryId: ENTRY, settings },
})
const syncConfigured = (settings: { enabled: boolean; intervalHours: number }): EntryEvent => ({
  type: 'EntrySyncConfigured',
  data: { entryId: ENTRY, settings },
})

test('entry: new sync settings of a URL entry record EntrySyncConfigured', () => {
  assert.equal(given(entry, [createdUrl]).when(configureSync({ enabled: false, intervalHours: 24 })), {
    events: [syncConfigured({ enabled: false, intervalHours: 24 })],
  })
  assert.equal(given(entry, [createdUrl]).when(configureSync({ enabled: true, intervalHours: 6 })), {
    events: [syncConfigured({ enabled: true, intervalHours: 6 })],
  })
})

test('entry: configuring sync of a URL entry created without settings records them', () => {
  const { sync: _, ...noSync } = createdUrl.data
  assert.equal(
    given(entry, [{ type: 'EntryCreated', data: noSync }]).when(configureSync({ enabled: true, intervalHours: 24 })),
    {
      events: [syncConfigured({ enabled: true, intervalHours: 24 })],
    },
  )
})

test('entry: the sync settings it already has record nothing', () => {
  assert.equal(given(entry, [createdUrl]).when(configureSync({ enabled: true, intervalHours: 24 })), { events: [] })
  const configured = syncConfigured({ enabled: false, intervalHours: 12 })
  assert.equal(given(entry, [createdUrl, configured]).when(configureSync({ enabled: false, intervalHours: 12 })), {
    events: [],
  })
  assert.equal(given(entry, [createdUrl, configured]).when(configureSync({ enabled: true, intervalHours: 24 })), {
    events: [syncConfigured({ enabled: true, intervalHours: 24 })],
  })
})

test('entry: configuring sync of an entry without a URL is VALIDATION_ERROR', () => {
  assert.equal(given(entry, [createdText]).when(configureSync({ enabled: true, intervalHours: 24 })), {
    error: 'VALIDATION_ERROR',
  })
})

// ---------------------------------------------------------------------------------------------------------------
// task

const TASK = 'task-1'
const queued: TaskQueued = {
  type: 'TaskQueued',
  data: {
    taskId: TASK,
    workspaceId: WS,
    entryId: ENTRY,
    kind: 'ingest',
    force: false,
    input: { type: 'url', url: 'https://example.com/docs', crawl: { depth: 1, maxPages: 10, sameDomainOnly: true } },
    title: 'Docs home',
    chunking,
    embed: true,
    maxBytes: 1_000_000,
  },
}
const ref = { taskId: TASK, workspaceId: WS, entryId: ENTRY }
const started = (attempt: number): TaskEvent => ({ type: 'TaskStarted', data: { ...ref, attempt } })
const progressed = (step: string, progress: number): TaskEvent => ({
  type: 'TaskProgressed',
  data: { ...ref, step, progress },
})
const result = { chunkCount: 4, wordCount: 120, characterCount: 800, processingTimeMs: 1500 }
const completed: TaskEvent = { type: 'TaskCompleted', data: { ...ref, result } }
const taskFailed = (error: string, progress: number): TaskEvent => ({
  type: 'TaskFailed',
  data: { ...ref, error, progress },
})

const start: TaskCommand = { type: 'StartTask', data: { taskId: TASK } }
const progress = (step: string, p: number): TaskCommand => ({
  type: 'ProgressTask',
  data: { taskId: TASK, step, progress: p },
})
const complete: TaskCommand = { type: 'CompleteTask', data: { taskId: TASK, result } }
const failTask: TaskCommand = { type: 'FailTask', data: { taskId: TASK, error: 'fetch failed: 404' } }

// QueueTask

test('task: queueing a new task records TaskQueued with the command data', () => {
  assert.equal(given(task, []).when({ type: 'QueueTask', data: queued.data }), { events: [queued] })
  const file = {
    ...queued.data,
    input: { type: 'file' as const, blob: 'sha-1', mimeType: 'text/plain', fileName: 'a.txt', size: 10, charset: 'x' },
  }
  assert.equal(given(task, []).when({ type: 'QueueTask', data: file }), {
    events: [{ type: 'TaskQueued', data: file }],
  })
})

test('task: queueing a task that exists records nothing, whatever its state', () => {
  assert.equal(given(task, [queued]).when({ type: 'QueueTask', data: queued.data }), { events: [] })
  assert.equal(given(task, [queued]).when({ type: 'QueueTask', data: { ...queued.data, kind: 'sync' } }), {
    events: [],
  })
  assert.equal(given(task, [queued, started(1), completed]).when({ type: 'QueueTask', data: queued.data }), {
    events: [],
  })
})

// Every other command on a missing task

test('task: starting, progressing, completing or failing an unknown task is NOT_FOUND', () => {
  for (const command of [start, progress('download', 10), complete, failTask])
    assert.equal(given(task, []).when(command), { error: 'NOT_FOUND' }, command.type)
})

// StartTask

test('task: starting a pending task records TaskStarted, attempt 1, with the queued ref', () => {
  assert.equal(given(task, [queued]).when(start), { events: [started(1)] })
})

test('task: starting a task that is processing (a redelivered job) records the next attempt', () => {
  assert.equal(given(task, [queued, started(1)]).when(start), { events: [started(2)] })
  assert.equal(given(task, [queued, started(1), started(2)]).when(start), { events: [started(3)] })
})

test(`task: starting a task already started ${MAX_ATTEMPTS} times is CONFLICT`, () => {
  const history = [queued, ...Array.from({ length: MAX_ATTEMPTS }, (_, i) => started(i + 1))]
  assert.is(MAX_ATTEMPTS, 3)
  assert.equal(given(task, history).when(start), { error: 'CONFLICT' })
})

test('task: starting a completed task is CONFLICT', () => {
  assert.equal(given(task, [queued, started(1), completed]).when(start), { error: 'CONFLICT' })
})

test('task: starting a failed task is CONFLICT', () => {
  assert.equal(given(task, [queued, started(1), taskFailed('boom', 0)]).when(start), { error: 'CONFLICT' })
  assert.equal(given(task, [queued, taskFailed('boom', 0)]).when(start), { error: 'CONFLICT' })
})

// ProgressTask

test('task: progress forward on a processing task records TaskProgressed', () => {
  assert.equal(given(task, [queued, started(1)]).when(progress('download', 10)), {
    events: [progressed('download', 10)],
  })
  assert.equal(given(task, [queued, started(1), progressed('download', 10)]).when(progress('parse', 40)), {
    events: [progressed('parse', 40)],
  })
})

test('task: progress that does not go forward records nothing', () => {
  const history = [queued, started(1), progressed('parse', 40)]
  assert.equal(given(task, history).when(progress('parse', 40)), { events: [] })
  assert.equal(given(task, history).when(progress('download', 10)), { events: [] })
  // A progress of 0 on a fresh start is not forward either.
  assert.equal(given(task, [queued, started(1)]).when(progress('queued', 0)), { events: [] })
})

test('task: progress of a task that is not processing records nothing', () => {
  assert.equal(given(task, [queued]).when(progress('download', 10)), { events: [] })
  assert.equal(given(task, [queued, started(1), completed]).when(progress('embed', 90)), { events: [] })
  assert.equal(given(task, [queued, started(1), taskFailed('boom', 10)]).when(progress('embed', 90)), {
    events: [],
  })
})

test("task: a restarted task keeps the previous attempt's progress (earlier steps record nothing)", () => {
  const history = [queued, started(1), progressed('parse', 40), started(2)]
  assert.equal(given(task, history).when(progress('download', 10)), { events: [] })
  assert.equal(given(task, history).when(progress('embed', 70)), { events: [progressed('embed', 70)] })
})

// CompleteTask

test('task: completing a processing task records TaskCompleted with its result', () => {
  assert.equal(given(task, [queued, started(1), progressed('embed', 80)]).when(complete), { events: [completed] })
})

test('task: completing a task that is not processing records nothing', () => {
  assert.equal(given(task, [queued]).when(complete), { events: [] })
  assert.equal(given(task, [queued, started(1), completed]).when(complete), { events: [] })
  assert.equal(given(task, [queued, started(1), taskFailed('boom', 10)]).when(complete), { events: [] })
})

// FailTask

test('task: failing a processing task records TaskFailed with the error and the progress reached', () => {
  assert.equal(given(task, [queued, started(1), progressed('parse', 40)]).when(failTask), {
    events: [taskFailed('fetch failed: 404', 40)],
  })
})

test('task: failing a pending task records TaskFailed at progress 0', () => {
  assert.equal(given(task, [queued]).when(failTask), { events: [taskFailed('fetch failed: 404', 0)] })
})

test('task: failing a finished task records nothing', () => {
  assert.equal(given(task, [queued, started(1), completed]).when(failTask), { events: [] })
  assert.equal(given(task, [queued, started(1), taskFailed('boom', 10)]).when(failTask), { events: [] })
})

test('task: events carry the ref of the queued task, not of the command', () => {
  const other = { taskId: 'task-x' }
  assert.equal(given(task, [queued]).when({ type: 'StartTask', data: other }), { events: [started(1)] })
  assert.equal(given(task, [queued, started(1)]).when({ type: 'CompleteTask', data: { ...other, result } }), {
    events: [completed],
  })
})

test.run()
