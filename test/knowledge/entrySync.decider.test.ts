import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type EntryCommand, type EntryEvent, entry } from '../../domain/knowledge/entry'
import { given } from '../../testkit/spec'
import { ENTRY, WS, createdText, createdUrl, processed } from '../helpers/fixtures/entries'

const test = suite('entry and task deciders: entry sync')

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

test.run()
