import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { embeddingCacheSchema, enableVectors, ensureEmbedded, pageEmbeddingInput } from '../../adapters/embeddingCache'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { openTextIndex } from '../../adapters/textIndex'
import { pageIndexProjector } from '../../projections/search/pageIndex'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: the search index of pages, the latest version and the verified pin')

const FIRST = 'Restart the service.'
const SECOND = 'Restart the service.\nThen check /health.'

// The commands embed a version before writing it: the cache holds the versions' vectors.
const spec = projectorSpec(async (db) => {
  await db.pool.query(embeddingCacheSchema)
  assert.ok(await enableVectors(db.pool))
  const embedder = hashingEmbedder()
  await ensureEmbedded(
    db.pool,
    embedder,
    [FIRST, SECOND].map((content) => pageEmbeddingInput('Runbook', content)),
  )
  return pageIndexProjector({ embedder, vectors: true, textIndex: await openTextIndex(db.pool) })
})

const person = { kind: 'human' as const, userId: 'user-1', name: 'Ann' }
const written = (pageId: string, version: number, content: string) => ({
  type: 'PageVersionWritten',
  data: { pageId, version, mode: version === 1 ? 'create' : 'replace', content, author: person, added: 1, removed: 0 },
  streamId: `page-${pageId}`,
})
const life = [
  { type: 'PageCreated', data: { pageId: 'p-1', workspaceId: 'ws-1', title: 'Runbook' }, streamId: 'page-p-1' },
  written('p-1', 1, FIRST),
  { type: 'PageVerified', data: { pageId: 'p-1', version: 1, by: { userId: 'user-1', name: 'Ann' } } },
  written('p-1', 2, SECOND),
  { type: 'PageCollectionChanged', data: { pageId: 'p-1', collectionId: 'c-1' }, streamId: 'page-p-1' },
  { type: 'PageCreated', data: { pageId: 'p-2', workspaceId: 'ws-1', title: 'Scratch' }, streamId: 'page-p-2' },
  written('p-2', 1, 'To be deleted.'),
  { type: 'PageDeleted', data: { pageId: 'p-2' }, streamId: 'page-p-2' },
]

const served = (rows: Record<string, Record<string, unknown>[]>) =>
  rows.kb_page_index
    .map((r) => [r.id, r.content, r.latest, r.pinned, r.collection_id, r.embedding !== null])
    .sort((a, b) => String(a[0]).localeCompare(String(b[0])))

test('the latest version and the verified pin are served, each with its vector; a deleted page is gone', () =>
  spec.given(life).then((rows) => {
    assert.equal(served(rows), [
      ['p-1:1', FIRST, false, true, 'c-1', true],
      ['p-1:2', SECOND, true, false, 'c-1', true],
    ])
    assert.equal(
      rows.kb_page_index_pages.map((p) => [p.page_id, p.title, p.collection_id]),
      [['p-1', 'Runbook', 'c-1']],
    )
  }))

test('a version with the pinned content carries the pin on; versions neither latest nor pinned leave', () =>
  spec.given([...life, written('p-1', 3, FIRST)]).then((rows) => {
    assert.equal(served(rows), [['p-1:3', FIRST, true, true, 'c-1', true]])
  }))

test.run()
