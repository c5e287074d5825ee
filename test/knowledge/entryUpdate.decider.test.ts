import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type EntryCommand, type EntryEvent, entry } from '../../domain/knowledge/entry'
import { given } from '../../testkit/spec'
import { ENTRY, WS, createdText, createdUrl, processed } from '../helpers/fixtures/entries'

const test = suite('entry and task deciders: entry updates')

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

test.run()
