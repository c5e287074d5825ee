import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { pagesProjector } from '../../projections/pages'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: pages, their versions and tombstones')
const spec = projectorSpec(pagesProjector)

const person = { kind: 'human' as const, userId: 'user-1', name: 'Ann' }
const agent = { kind: 'agent' as const, client: 'claude', keyId: 'key-1' }
const page = { pageId: 'p-1', workspaceId: 'ws-1', title: 'Runbook' }
const written = (version: number, mode: string, content: string, author: object) => ({
  type: 'PageVersionWritten',
  data: { pageId: 'p-1', version, mode, content, author, added: 1, removed: 0 },
  streamId: 'page-p-1',
})
const life = [
  { type: 'PageCreated', data: page, streamId: 'page-p-1' },
  written(1, 'create', 'Restart the service.', person),
  written(2, 'append', 'Restart the service.\nThen check /health.', agent),
  { type: 'PageVerified', data: { pageId: 'p-1', version: 1, by: { userId: 'user-1', name: 'Ann' } } },
]

test('a page holds its latest version and its verified pin', () =>
  spec.given(life).then((rows) => {
    const [p] = rows.kb_pages
    assert.equal([p.version, p.content, p.verified_version], [2, 'Restart the service.\nThen check /health.', 1])
    assert.equal(rows.kb_page_versions.map((v) => [v.version, v.mode, v.author]).sort(), [
      [1, 'create', person],
      [2, 'append', agent],
    ])
  }))

test('a deleted page leaves a tombstone with its title and the positions of its life', () =>
  spec.given([...life, { type: 'PageDeleted', data: { pageId: 'p-1' }, streamId: 'page-p-1' }]).then((rows) => {
    assert.equal(rows.kb_pages, [])
    const [t] = rows.kb_page_tombstones
    assert.equal([t.id, t.title, Number(t.created_position), Number(t.deleted_position)], ['p-1', 'Runbook', 1, 5])
  }))

test.run()
