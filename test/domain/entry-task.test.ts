import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  type EntryCommand,
  type EntryContentProcessed,
  type EntryCreated,
  type EntryEvent,
  entry,
} from '../../domain/knowledge/entry'
import { given } from '../../testkit/spec'
import { MAX_ATTEMPTS, type TaskCommand, type TaskEvent, type TaskQueued, task } from '../../domain/knowledge/task'

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
  given(entry, []).when({ type: 'CreateEntry', data: createdText.data }).then([createdText])
  given(entry, []).when({ type: 'CreateEntry', data: createdUrl.data }).then([createdUrl])
})

test('entry: creating an entry that exists is CONFLICT', () => {
  given(entry, [createdText]).when({ type: 'CreateEntry', data: createdText.data }).thenFails('CONFLICT')
})

test('entry: creating an entry over a deleted one is CONFLICT (an id is never reused)', () => {
  given(entry, [createdText, deleted]).when({ type: 'CreateEntry', data: createdText.data }).thenFails('CONFLICT')
})

// Every other command on a missing, deleted or foreign entry

test('entry: every command on an entry that was never created is NOT_FOUND', () => {
  for (const command of commandsOn(WS)) given(entry, []).when(command).thenFails('NOT_FOUND', command.type)
})

test('entry: every command on a deleted entry is NOT_FOUND', () => {
  for (const command of commandsOn(WS))
    given(entry, [createdUrl, deleted]).when(command).thenFails('NOT_FOUND', command.type)
})

test("entry: every command on another workspace's entry is NOT_FOUND", () => {
  for (const command of commandsOn(OTHER_WS))
    given(entry, [createdUrl]).when(command).thenFails('NOT_FOUND', command.type)
  // The same commands in the entry's own workspace are not refused as missing.
  for (const command of commandsOn(WS))
    assert.not.equal(given(entry, [createdUrl]).when(command).outcome, { error: 'NOT_FOUND' }, command.type)
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
  given(entry, [base, tagged]).when(command).then([replaced])
  const state = [base, tagged, replaced].reduce(entry.evolve, entry.initialState())
  assert.equal(state.status === 'active' && state.metadata, before)
})

test('entry: replacing the metadata with what it already is records nothing', () => {
  const base = { ...createdText, data: { ...createdText.data, metadata: { category: 'policy', tags: ['a'] } } }
  given(entry, [base])
    .when({
      type: 'ReplaceEntryMetadata',
      data: { workspaceId: WS, entryId: ENTRY, metadata: { tags: ['a'], category: 'policy' } },
    })
    .thenNothing()
})

// UpdateEntry

test('entry: changing the title records EntryUpdated without the workspace id', () => {
  given(entry, [createdText])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { title: 'Refund policy v2' } },
    })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'Refund policy v2' } } }])
})

test('entry: changing the content records it with its token count and chunk spans', () => {
  const changes = { content: 'Hello there, world', tokenCount: 4, chunks: [{ start: 0, end: 18, tokenCount: 4 }] }
  given(entry, [createdText])
    .when({ type: 'UpdateEntry', data: { workspaceId: WS, entryId: ENTRY, changes } })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes } }])
})

test('entry: disabling an entry records EntryUpdated', () => {
  given(entry, [createdText])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { isEnabled: false } },
    })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { isEnabled: false } } }])
})

test('entry: changing one metadata field records EntryUpdated', () => {
  given(entry, [createdText])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { metadata: { category: 'faq' } } },
    })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { metadata: { category: 'faq' } } } }])
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
  given(entry, [createdText]).when(update(same)).thenNothing()
  given(entry, [createdText]).when(update({})).thenNothing()
})

test('entry: metadata already held (a subset of it) is no change', () => {
  given(entry, [createdText])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { metadata: { tags: ['billing'] } } },
    })
    .thenNothing()
})

test('entry: new token counts or spans without new content are no change', () => {
  given(entry, [createdText])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'Hello world', tokenCount: 99, chunks: [] } },
    })
    .thenNothing()
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
    }).outcome
  assert.equal(update({ title: 'T2', isEnabled: false }), { events: [] })
  // The metadata was merged, not replaced: the fields from creation are still there.
  assert.equal(update({ metadata: { category: 'policy', tags: ['billing'], author: 'ann' } }), { events: [] })
  assert.equal(update({ title: 'Refund policy' }), {
    events: [{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'Refund policy' } } }],
  })
})

test('entry: changing the content while a task fills the entry is CONFLICT', () => {
  given(entry, [createdUrl])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    })
    .thenFails('CONFLICT')
  const refusal = given(entry, [createdUrl]).when({
    type: 'UpdateEntry',
    data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
  }).refusal
  assert.match(refusal?.message ?? '', 'task-1', 'the message names the pending task')
})

test('entry: while a task fills the entry, its title can change and its unchanged content is no change', () => {
  given(entry, [createdUrl])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { title: 'Docs' } },
    })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'Docs' } } }])
  given(entry, [createdUrl])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: '' } },
    })
    .thenNothing()
})

test('entry: once the task has landed, the content can change', () => {
  given(entry, [createdUrl, processed('task-1')])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { content: 'typed by hand' } } }])
  // The processed content is the entry's content now.
  given(entry, [createdUrl, processed('task-1')])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'Fetched page' } },
    })
    .thenNothing()
})

// MoveEntry

test('entry: moving to another folder records EntryMoved with the previous folder', () => {
  given(entry, [createdText])
    .when({ type: 'MoveEntry', data: { workspaceId: WS, entryId: ENTRY, folderId: null } })
    .then([{ type: 'EntryMoved', data: { entryId: ENTRY, folderId: null, previousFolderId: 'folder-a' } }])
  given(entry, [createdUrl])
    .when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-b' },
    })
    .then([{ type: 'EntryMoved', data: { entryId: ENTRY, folderId: 'folder-b', previousFolderId: null } }])
})

test('entry: moving to the folder it is in records nothing', () => {
  given(entry, [createdText])
    .when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-a' },
    })
    .thenNothing()
  const moved: EntryEvent = {
    type: 'EntryMoved',
    data: { entryId: ENTRY, folderId: 'folder-b', previousFolderId: 'folder-a' },
  }
  given(entry, [createdText, moved])
    .when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-b' },
    })
    .thenNothing()
  given(entry, [createdText, moved])
    .when({
      type: 'MoveEntry',
      data: { workspaceId: WS, entryId: ENTRY, folderId: 'folder-a' },
    })
    .then([{ type: 'EntryMoved', data: { entryId: ENTRY, folderId: 'folder-a', previousFolderId: 'folder-b' } }])
})

// VerifyEntry

test('entry: verifying records EntryVerified with who and when, without the workspace id', () => {
  given(entry, [createdText])
    .when({
      type: 'VerifyEntry',
      data: { workspaceId: WS, entryId: ENTRY, at: T1, by: 'user-2' },
    })
    .then([{ type: 'EntryVerified', data: { entryId: ENTRY, at: T1, by: 'user-2' } }])
})

test('entry: verifying a verified entry records the new verification', () => {
  const verified: EntryEvent = { type: 'EntryVerified', data: { entryId: ENTRY, at: T0, by: 'user-2' } }
  given(entry, [createdText, verified])
    .when({
      type: 'VerifyEntry',
      data: { workspaceId: WS, entryId: ENTRY, at: T1, by: 'user-3' },
    })
    .then([{ type: 'EntryVerified', data: { entryId: ENTRY, at: T1, by: 'user-3' } }])
})

// DeleteEntry

test("entry: deleting records the EntryDeleted tombstone with the command data and the entry's title", () => {
  given(entry, [createdText])
    .when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1, createdPosition: 7 },
    })
    .then([{ type: 'EntryDeleted', data: { ...deleted.data, createdPosition: 7, title: createdText.data.title } }])
})

test('entry: deleting an entry while a task fills it is accepted', () => {
  given(entry, [createdUrl])
    .when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1 },
    })
    .then([{ type: 'EntryDeleted', data: { ...deleted.data, title: createdUrl.data.title } }])
})

test('entry: deleting a deleted entry is NOT_FOUND', () => {
  given(entry, [createdText, deleted])
    .when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1 },
    })
    .thenFails('NOT_FOUND')
})

// ProcessContent

const processContent = (taskId: string): EntryCommand => {
  return { type: 'ProcessContent', data: { ...processed(taskId).data, workspaceId: WS } }
}

test("entry: the pending task's content lands as EntryContentProcessed, without the workspace id", () => {
  given(entry, [createdUrl])
    .when(processContent('task-1'))
    .then([processed('task-1')])
})

test('entry: content from a task that is not the pending one records nothing', () => {
  given(entry, [createdUrl]).when(processContent('task-9')).thenNothing()
  // A text entry has no pending task at all.
  given(entry, [createdText]).when(processContent('task-1')).thenNothing()
})

test("entry: a redelivered task's content lands only once", () => {
  given(entry, [createdUrl, processed('task-1')])
    .when(processContent('task-1'))
    .thenNothing()
})

// KeepUnchanged

const unchanged = (taskId: string): EntryEvent => ({ type: 'EntrySyncUnchanged', data: { entryId: ENTRY, taskId } })
const keepUnchanged = (taskId: string): EntryCommand => ({
  type: 'KeepUnchanged',
  data: { workspaceId: WS, entryId: ENTRY, taskId },
})

test('entry: the pending task finding nothing new records EntrySyncUnchanged', () => {
  given(entry, [createdUrl])
    .when(keepUnchanged('task-1'))
    .then([unchanged('task-1')])
})

test('entry: keeping unchanged for a task that is not pending records nothing', () => {
  given(entry, [createdUrl]).when(keepUnchanged('task-9')).thenNothing()
  given(entry, [createdUrl, unchanged('task-1')])
    .when(keepUnchanged('task-1'))
    .thenNothing()
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
  given(entry, [createdUrl])
    .when(failProcessing('task-1'))
    .then([failed('task-1')])
})

test('entry: a failure of a task that is not pending records nothing', () => {
  given(entry, [createdUrl]).when(failProcessing('task-9')).thenNothing()
  given(entry, [createdUrl, failed('task-1')])
    .when(failProcessing('task-1'))
    .thenNothing()
  given(entry, [createdUrl, processed('task-1')])
    .when(failProcessing('task-1'))
    .thenNothing()
})

test('entry: after a failed task the content can be changed by hand', () => {
  given(entry, [createdUrl, failed('task-1')])
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    })
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { content: 'typed by hand' } } }])
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
  given(entry, [createdUrl, processed('task-1')])
    .when(requestSync('task-2'))
    .then([syncRequested('task-2')])
  given(entry, [createdUrl, failed('task-1')])
    .when(requestSync('task-2'))
    .then([syncRequested('task-2')])
})

test('entry: requesting a sync of an entry without a URL is VALIDATION_ERROR', () => {
  given(entry, [createdText]).when(requestSync('task-2')).thenFails('VALIDATION_ERROR')
  assert.equal(given(entry, [createdText]).when(requestSync('task-2')).refusal?.details, [
    'id: the entry has no URL to sync',
  ])
})

test('entry: requesting a sync while a task is pending records nothing', () => {
  given(entry, [createdUrl]).when(requestSync('task-2')).thenNothing()
  given(entry, [createdUrl, processed('task-1'), syncRequested('task-2')])
    .when(requestSync('task-3'))
    .thenNothing()
})

test('entry: a requested sync becomes the pending task (its outcome lands, the old task is ignored)', () => {
  const history = [createdUrl, processed('task-1'), syncRequested('task-2')]
  given(entry, history)
    .when(keepUnchanged('task-2'))
    .then([unchanged('task-2')])
  given(entry, history).when(keepUnchanged('task-1')).thenNothing()
  given(entry, history)
    .when({
      type: 'UpdateEntry',
      data: { workspaceId: WS, entryId: ENTRY, changes: { content: 'typed by hand' } },
    })
    .thenFails('CONFLICT')
  // After the sync finished unchanged, another one can be requested.
  given(entry, [...history, unchanged('task-2')])
    .when(requestSync('task-3'))
    .then([syncRequested('task-3')])
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
  given(entry, [createdUrl])
    .when(configureSync({ enabled: false, intervalHours: 24 }))
    .then([syncConfigured({ enabled: false, intervalHours: 24 })])
  given(entry, [createdUrl])
    .when(configureSync({ enabled: true, intervalHours: 6 }))
    .then([syncConfigured({ enabled: true, intervalHours: 6 })])
})

test('entry: configuring sync of a URL entry created without settings records them', () => {
  const { sync: _, ...noSync } = createdUrl.data
  given(entry, [{ type: 'EntryCreated', data: noSync }])
    .when(configureSync({ enabled: true, intervalHours: 24 }))
    .then([syncConfigured({ enabled: true, intervalHours: 24 })])
})

test('entry: the sync settings it already has record nothing', () => {
  given(entry, [createdUrl])
    .when(configureSync({ enabled: true, intervalHours: 24 }))
    .thenNothing()
  const configured = syncConfigured({ enabled: false, intervalHours: 12 })
  given(entry, [createdUrl, configured])
    .when(configureSync({ enabled: false, intervalHours: 12 }))
    .thenNothing()
  given(entry, [createdUrl, configured])
    .when(configureSync({ enabled: true, intervalHours: 24 }))
    .then([syncConfigured({ enabled: true, intervalHours: 24 })])
})

test('entry: configuring sync of an entry without a URL is VALIDATION_ERROR', () => {
  given(entry, [createdText])
    .when(configureSync({ enabled: true, intervalHours: 24 }))
    .thenFails('VALIDATION_ERROR')
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
  given(task, []).when({ type: 'QueueTask', data: queued.data }).then([queued])
  const file = {
    ...queued.data,
    input: { type: 'file' as const, blob: 'sha-1', mimeType: 'text/plain', fileName: 'a.txt', size: 10, charset: 'x' },
  }
  given(task, [])
    .when({ type: 'QueueTask', data: file })
    .then([{ type: 'TaskQueued', data: file }])
})

test('task: queueing a task that exists records nothing, whatever its state', () => {
  given(task, [queued]).when({ type: 'QueueTask', data: queued.data }).thenNothing()
  given(task, [queued])
    .when({ type: 'QueueTask', data: { ...queued.data, kind: 'sync' } })
    .thenNothing()
  given(task, [queued, started(1), completed])
    .when({ type: 'QueueTask', data: queued.data })
    .thenNothing()
})

// Every other command on a missing task

test('task: starting, progressing, completing or failing an unknown task is NOT_FOUND', () => {
  for (const command of [start, progress('download', 10), complete, failTask])
    given(task, []).when(command).thenFails('NOT_FOUND', command.type)
})

// StartTask

test('task: starting a pending task records TaskStarted, attempt 1, with the queued ref', () => {
  given(task, [queued])
    .when(start)
    .then([started(1)])
})

test('task: starting a task that is processing (a redelivered job) records the next attempt', () => {
  given(task, [queued, started(1)])
    .when(start)
    .then([started(2)])
  given(task, [queued, started(1), started(2)])
    .when(start)
    .then([started(3)])
})

test(`task: starting a task already started ${MAX_ATTEMPTS} times is CONFLICT`, () => {
  const history = [queued, ...Array.from({ length: MAX_ATTEMPTS }, (_, i) => started(i + 1))]
  assert.is(MAX_ATTEMPTS, 3)
  given(task, history).when(start).thenFails('CONFLICT')
})

test('task: starting a completed task is CONFLICT', () => {
  given(task, [queued, started(1), completed])
    .when(start)
    .thenFails('CONFLICT')
})

test('task: starting a failed task is CONFLICT', () => {
  given(task, [queued, started(1), taskFailed('boom', 0)])
    .when(start)
    .thenFails('CONFLICT')
  given(task, [queued, taskFailed('boom', 0)])
    .when(start)
    .thenFails('CONFLICT')
})

// ProgressTask

test('task: progress forward on a processing task records TaskProgressed', () => {
  given(task, [queued, started(1)])
    .when(progress('download', 10))
    .then([progressed('download', 10)])
  given(task, [queued, started(1), progressed('download', 10)])
    .when(progress('parse', 40))
    .then([progressed('parse', 40)])
})

test('task: progress that does not go forward records nothing', () => {
  const history = [queued, started(1), progressed('parse', 40)]
  given(task, history).when(progress('parse', 40)).thenNothing()
  given(task, history).when(progress('download', 10)).thenNothing()
  // A progress of 0 on a fresh start is not forward either.
  given(task, [queued, started(1)])
    .when(progress('queued', 0))
    .thenNothing()
})

test('task: progress of a task that is not processing records nothing', () => {
  given(task, [queued]).when(progress('download', 10)).thenNothing()
  given(task, [queued, started(1), completed])
    .when(progress('embed', 90))
    .thenNothing()
  given(task, [queued, started(1), taskFailed('boom', 10)])
    .when(progress('embed', 90))
    .thenNothing()
})

test("task: a restarted task keeps the previous attempt's progress (earlier steps record nothing)", () => {
  const history = [queued, started(1), progressed('parse', 40), started(2)]
  given(task, history).when(progress('download', 10)).thenNothing()
  given(task, history)
    .when(progress('embed', 70))
    .then([progressed('embed', 70)])
})

// CompleteTask

test('task: completing a processing task records TaskCompleted with its result', () => {
  given(task, [queued, started(1), progressed('embed', 80)])
    .when(complete)
    .then([completed])
})

test('task: completing a task that is not processing records nothing', () => {
  given(task, [queued]).when(complete).thenNothing()
  given(task, [queued, started(1), completed])
    .when(complete)
    .thenNothing()
  given(task, [queued, started(1), taskFailed('boom', 10)])
    .when(complete)
    .thenNothing()
})

// FailTask

test('task: failing a processing task records TaskFailed with the error and the progress reached', () => {
  given(task, [queued, started(1), progressed('parse', 40)])
    .when(failTask)
    .then([taskFailed('fetch failed: 404', 40)])
})

test('task: failing a pending task records TaskFailed at progress 0', () => {
  given(task, [queued])
    .when(failTask)
    .then([taskFailed('fetch failed: 404', 0)])
})

test('task: failing a finished task records nothing', () => {
  given(task, [queued, started(1), completed])
    .when(failTask)
    .thenNothing()
  given(task, [queued, started(1), taskFailed('boom', 10)])
    .when(failTask)
    .thenNothing()
})

test('task: events carry the ref of the queued task, not of the command', () => {
  const other = { taskId: 'task-x' }
  given(task, [queued])
    .when({ type: 'StartTask', data: other })
    .then([started(1)])
  given(task, [queued, started(1)])
    .when({ type: 'CompleteTask', data: { ...other, result } })
    .then([completed])
})

test.run()
