import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { embeddingCacheSchema, enableVectors, ensureEmbedded } from '../../adapters/embeddingCache'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { openTextIndex } from '../../adapters/textIndex'
import { chunksProjector } from '../../projections/search/chunks'
import { entryCreated } from '../../testkit/entryEvents'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: the search index of entries, its history and the vectors closed rows keep')

/** What the model is given for a passage: the entry's title, then the passage (./embeddingCache.ts). */
const EMBEDDED = ['Wombats\n\nWombats dig burrows.', 'Wombats\n\nWombats dig burrows at night.']

// The commands embed what they write before appending it: the cache holds the passages' vectors.
const spec = projectorSpec(async (db) => {
  await db.pool.query(embeddingCacheSchema)
  assert.ok(await enableVectors(db.pool))
  const embedder = hashingEmbedder()
  await ensureEmbedded(db.pool, embedder, EMBEDDED)
  return chunksProjector({ embedder, vectors: true, textIndex: await openTextIndex(db.pool) })
})

const entry = (id: string, revision: number) => ({ streamId: `entry-${id}`, revision })
const edited = {
  type: 'EntryUpdated',
  data: {
    entryId: 'e-1',
    changes: {
      content: 'Wombats dig burrows at night.',
      tokenCount: 6,
      chunks: [{ start: 0, end: 29, tokenCount: 6 }],
    },
  },
  ...entry('e-1', 1),
}
const disabled = { type: 'EntryUpdated', data: { entryId: 'e-1', changes: { isEnabled: false } }, ...entry('e-1', 2) }
const deleted = {
  type: 'EntryDeleted',
  data: {
    entryId: 'e-2',
    workspaceId: 'ws-1',
    deletedBy: 'user-1',
    at: '2026-01-01T00:00:05.000Z',
    title: 'Bilbies',
    createdPosition: 4,
    firstContentRevision: 0,
  },
  ...entry('e-2', 1),
}

const life = [
  entryCreated('e-1', 'Wombats', 'Wombats dig burrows.'),
  edited,
  disabled,
  entryCreated('e-2', 'Bilbies', 'Bilbies eat seeds.'),
  deleted,
]

test('an entry as it stands: its chunk, its passage with its vector, and the switch on every row', () =>
  spec.given(life).then((rows) => {
    assert.equal(
      rows.kb_chunks.map((c) => [c.id, c.content, c.is_enabled, c.tags, Number(c.revision)]),
      [['e-1:0', 'Wombats dig burrows at night.', false, ['burrow'], 1]],
    )
    assert.equal(
      rows.kb_passages.map((p) => [p.id, p.content, p.is_enabled, p.model, p.embedding !== null]),
      [['e-1:0', 'Wombats dig burrows at night.', false, 'hashing-v1', true]],
    )
    assert.equal(
      rows.kb_chunk_entries.map((e) => [e.entry_id, e.title, e.body_text, e.is_enabled]),
      [['e-1', 'Wombats', 'wombats dig burrows at night', false]],
    )
  }))

test('the history: each state by log position; a replaced passage keeps its vector; a deletion leaves none', () =>
  spec.given(life).then((rows) => {
    const byFrom = (table: string) =>
      rows[table]
        .map((r): Record<string, unknown> & { from: number; to: number | null } => ({
          ...r,
          from: Number(r.valid_from),
          to: r.valid_to === null ? null : Number(r.valid_to),
        }))
        .sort((a, b) => a.from - b.from)
    assert.equal(
      byFrom('kb_chunks_history').map((c) => [c.from, c.to, c.content, c.is_enabled]),
      [
        [1, 2, 'Wombats dig burrows.', true],
        [2, 3, 'Wombats dig burrows at night.', true],
        [3, null, 'Wombats dig burrows at night.', false],
      ],
    )
    // Only the row whose text was replaced keeps a vector: the others' text is the passage's now.
    assert.equal(
      byFrom('kb_passages_history').map((p) => [p.from, p.to, p.content, p.replaced, p.closed_embedding !== null]),
      [
        [1, 2, 'Wombats dig burrows.', true, true],
        [2, 3, 'Wombats dig burrows at night.', false, false],
        [3, null, 'Wombats dig burrows at night.', false, false],
      ],
    )
    for (const table of ['kb_chunks', 'kb_passages', 'kb_chunk_entries'])
      for (const t of [table, `${table}_history`])
        assert.ok(
          rows[t].every((r) => r.entry_id !== 'e-2'),
          `${t}: the deleted entry is gone, as of every time`,
        )
  }))

test('a row closed by a switch keeps no vector until its text is replaced', () =>
  spec
    .given([
      ...life,
      {
        type: 'EntryUpdated',
        data: {
          entryId: 'e-1',
          changes: {
            content: 'Wombats are marsupials.',
            tokenCount: 4,
            chunks: [{ start: 0, end: 23, tokenCount: 4 }],
          },
        },
        ...entry('e-1', 3),
      },
    ])
    .then((rows) => {
      assert.equal(
        rows.kb_passages_history
          .map((p) => [Number(p.valid_from), p.replaced, p.closed_embedding !== null])
          .sort((a, b) => (a[0] as number) - (b[0] as number)),
        [
          [1, true, true],
          [2, true, true],
          [3, true, true],
          [6, false, false],
        ],
      )
    }))

test("a new title gives the entry's passages new vectors, and a re-embedding every passage of the workspace", () =>
  spec
    .given([
      entryCreated('e-1', 'Wombats', 'Wombats dig burrows.'),
      { type: 'EntryUpdated', data: { entryId: 'e-1', changes: { title: 'Wombats at night' } }, ...entry('e-1', 1) },
      { type: 'EmbeddingsRebuilt', data: { workspaceId: 'ws-1', model: 'hashing-v1', chunkCount: 1 } },
    ])
    .then((rows) => {
      const [now] = rows.kb_passages
      const [then] = rows.kb_passages_history.filter((p) => Number(p.valid_from) === 1)
      // Each is embedded beside its title: the passage's text under the new title is another input.
      assert.equal([now.model, then.model], ['hashing-v1', 'hashing-v1'])
      assert.ok(now.text_hash !== then.text_hash)
      assert.ok(now.embedding === null, 'the cache holds no vector for the new input yet: the filler sets it')
    }))

test.run()
