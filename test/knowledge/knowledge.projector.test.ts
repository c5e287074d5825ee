import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { knowledgeProjector } from '../../projections/knowledge'
import { entryCreated } from '../../testkit/entryEvents'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: entries, their history and tombstones, folders')
const spec = projectorSpec(knowledgeProjector)

const entry = (revision: number) => ({ streamId: 'entry-e-1', revision })
const created = entryCreated('e-1', 'Wombats', 'Wombats dig burrows.')
const folder = {
  type: 'FolderCreated',
  data: { folderId: 'f-1', workspaceId: 'ws-1', name: 'Animals' },
  streamId: 'folder-f-1',
}
const edited = {
  type: 'EntryUpdated',
  data: {
    entryId: 'e-1',
    changes: {
      content: 'Wombats dig burrows at night.',
      tokenCount: 6,
      chunks: [{ start: 0, end: 29, tokenCount: 6 }],
      isEnabled: false,
    },
  },
  ...entry(1),
}
const moved = { type: 'EntryMoved', data: { entryId: 'e-1', folderId: 'f-1', previousFolderId: null }, ...entry(2) }

test('an entry as it stands, and each state it stood in, by log position', () =>
  spec.given([created, folder, edited, moved]).then((rows) => {
    const [e] = rows.kb_entries
    assert.equal(
      [e.title, e.content, e.is_enabled, e.folder_id, Number(e.first_content_revision)],
      ['Wombats', 'Wombats dig burrows at night.', false, 'f-1', 0],
    )
    assert.equal(
      rows.kb_entries_history
        .map((h) => [Number(h.valid_from), h.valid_to && Number(h.valid_to), h.content, h.folder_id])
        .sort((a, b) => (a[0] as number) - (b[0] as number)),
      [
        [1, 3, 'Wombats dig burrows.', null],
        [3, 4, 'Wombats dig burrows at night.', null],
        [4, null, 'Wombats dig burrows at night.', 'f-1'],
      ],
    )
    assert.equal(
      rows.kb_folders.map((f) => f.name),
      ['Animals'],
    )
  }))

test('a deletion leaves a tombstone (its title, where it began, where its versions start) and no history', () =>
  spec
    .given([
      created,
      edited,
      {
        type: 'EntryDeleted',
        data: {
          entryId: 'e-1',
          workspaceId: 'ws-1',
          deletedBy: 'user-1',
          at: '2026-01-01T00:00:02.000Z',
          title: 'Wombats',
          createdPosition: 1,
          firstContentRevision: 0,
        },
        ...entry(2),
      },
    ])
    .then((rows) => {
      assert.equal(rows.kb_entries, [])
      assert.equal(rows.kb_entries_history, [])
      const [t] = rows.kb_entry_tombstones
      assert.equal(
        [t.id, t.title, Number(t.first_position), Number(t.deleted_position), Number(t.first_content_revision)],
        ['e-1', 'Wombats', 1, 3, 0],
      )
    }))

test.run()
