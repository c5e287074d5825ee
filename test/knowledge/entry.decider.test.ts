import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type EntryCommand, type EntryEvent, entry } from '../../domain/knowledge/entry'
import { given } from '../../testkit/spec'
import { ENTRY, WS, createdText, createdUrl, processed } from '../helpers/fixtures/entries'

const test = suite('entry and task deciders: entry')

const OTHER_WS = 'ws-2'
const T0 = '2026-01-01T00:00:00.000Z'
const T1 = '2026-01-02T00:00:00.000Z'

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

test('entry: verifying an entry without content (still pending, or its processing failed) is VALIDATION_ERROR', () => {
  given(entry, [createdUrl])
    .when({ type: 'VerifyEntry', data: { workspaceId: WS, entryId: ENTRY, at: T1, by: 'user-2' } })
    .thenFails('VALIDATION_ERROR')
  const failed: EntryEvent = {
    type: 'EntryProcessingFailed',
    data: { entryId: ENTRY, taskId: 'task-1', error: 'boom', sync: false },
  }
  given(entry, [createdUrl, failed])
    .when({ type: 'VerifyEntry', data: { workspaceId: WS, entryId: ENTRY, at: T1, by: 'user-2' } })
    .thenFails('VALIDATION_ERROR')
})

// TitleFromDocument

test("entry: a document's title replaces the provisional one, and never a title someone gave since", () => {
  const retitle = (provisional: string, title: string): EntryCommand => ({
    type: 'TitleFromDocument',
    data: { workspaceId: WS, entryId: ENTRY, provisional, title },
  })
  given(entry, [createdUrl])
    .when(retitle('Docs home', 'The Docs'))
    .then([{ type: 'EntryUpdated', data: { entryId: ENTRY, changes: { title: 'The Docs' } } }])
  given(entry, [createdUrl]).when(retitle('docs', 'The Docs')).thenNothing()
  given(entry, [createdUrl]).when(retitle('Docs home', 'Docs home')).thenNothing()
})

// DeleteEntry

test("entry: deleting records the EntryDeleted tombstone with the command data and the entry's title", () => {
  given(entry, [createdText])
    .when({
      type: 'DeleteEntry',
      data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1, createdPosition: 7 },
    })
    .then([
      {
        type: 'EntryDeleted',
        data: { ...deleted.data, createdPosition: 7, title: createdText.data.title, firstContentRevision: 0 },
      },
    ])
})

test('entry: a deletion records the revision of the first content, from which versions count', () => {
  const taskId = createdUrl.data.taskId ?? ''
  const moved: EntryEvent = { type: 'EntryMoved', data: { entryId: ENTRY, folderId: 'f', previousFolderId: null } }
  given(entry, [createdUrl, moved, processed(taskId)])
    .when({ type: 'DeleteEntry', data: { entryId: ENTRY, workspaceId: WS, deletedBy: 'user-1', at: T1 } })
    .then([{ type: 'EntryDeleted', data: { ...deleted.data, title: createdUrl.data.title, firstContentRevision: 2 } }])
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

test.run()
