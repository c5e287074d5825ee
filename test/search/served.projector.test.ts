import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { servedProjector } from '../../projections/search'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: what searches served, and how often each entry and page was cited')
const spec = projectorSpec(servedProjector)

const search = (searchId: string, entryIds: string[], asOf?: number) => ({
  type: 'SearchServed',
  data: {
    searchId,
    workspaceId: 'ws-1',
    mode: 'text',
    resultCount: entryIds.length,
    entryIds,
    ...(asOf ? { asOf } : {}),
  },
})
const pageSearch = (searchId: string, citations: object[], packSlug?: string) => ({
  type: 'PageSearchServed',
  data: { searchId, workspaceId: 'ws-1', mode: 'text', citations, ...(packSlug ? { packSlug } : {}) },
})
const counts = (rows: Record<string, Record<string, unknown>[]>) =>
  rows.kb_citation_counts.map((c) => [c.kind, c.id, c.cited]).sort()

test('each search is a row, and each entry or page it served counts once more (a pack its serves)', () =>
  spec
    .given([
      search('s-1', ['e-1', 'e-2']),
      search('s-2', ['e-2']),
      // A search of a past moment is recorded, but cites nothing of now.
      search('s-3', ['e-1'], 2),
      pageSearch('s-4', [{ pageId: 'p-1', version: 2 }]),
      pageSearch(
        's-5',
        [
          { pageId: 'p-1', version: 2, count: 3 },
          { pageId: 'p-2', version: 1 },
        ],
        'runbooks',
      ),
    ])
    .then((rows) => {
      assert.equal(
        rows.kb_served_searches.map((s) => [Number(s.position), s.entry_ids]),
        [
          [1, ['e-1', 'e-2']],
          [2, ['e-2']],
          [3, []],
        ],
      )
      assert.equal(
        rows.kb_served_page_citations.map((c) => [c.search_id, c.page_id, c.version, c.pack_slug, c.served]),
        [
          ['s-4', 'p-1', 2, null, 1],
          ['s-5', 'p-1', 2, 'runbooks', 3],
          ['s-5', 'p-2', 1, 'runbooks', 1],
        ],
      )
      assert.equal(counts(rows), [
        ['entry', 'e-1', 1],
        ['entry', 'e-2', 2],
        ['page', 'p-1', 4],
        ['page', 'p-2', 1],
      ])
    }))

test('a deleted entry or page loses its count, a page its citations; the searches over entries stay', () =>
  spec
    .given([
      search('s-1', ['e-1', 'e-2']),
      pageSearch('s-2', [{ pageId: 'p-1', version: 1 }]),
      { type: 'EntryDeleted', data: { entryId: 'e-1', workspaceId: 'ws-1', deletedBy: 'user-1', at: '2026-01-01' } },
      { type: 'PageDeleted', data: { pageId: 'p-1' } },
    ])
    .then((rows) => {
      assert.equal(counts(rows), [['entry', 'e-2', 1]])
      assert.equal(rows.kb_served_searches.length, 1)
      assert.equal(rows.kb_served_page_citations, [])
    }))

test.run()
