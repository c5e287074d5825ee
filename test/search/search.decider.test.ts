import { suite } from 'uvu'
import { pageSearch, search } from '../../domain/search/search'
import { given } from '../../testkit/spec'
import { WS, pageServed, served } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: search')

test('search: recording a search records SearchServed with its citations', () => {
  given(search, [])
    .when({ type: 'RecordSearch', data: served })
    .then([
      {
        type: 'SearchServed',
        data: {
          searchId: 'search-0001',
          workspaceId: WS,
          mode: 'hybrid',
          resultCount: 2,
          entryIds: ['entry-0001', 'entry-0002'],
        },
      },
    ])
})

test('search: a search with no results is still recorded', () => {
  const none = { ...served, resultCount: 0, entryIds: [] }
  given(search, [])
    .when({ type: 'RecordSearch', data: none })
    .then([{ type: 'SearchServed', data: none }])
})

test('search: recording a search that is already recorded records nothing', () => {
  const recorded = { type: 'SearchServed' as const, data: served }
  given(search, [recorded]).when({ type: 'RecordSearch', data: served }).thenNothing()
  const other = { ...served, mode: 'text', resultCount: 1, entryIds: ['entry-0003'] }
  given(search, [recorded]).when({ type: 'RecordSearch', data: other }).thenNothing()
})

test('page search: recording a workspace page search records PageSearchServed', () => {
  given(pageSearch, [])
    .when({ type: 'RecordPageSearch', data: pageServed })
    .then([
      {
        type: 'PageSearchServed',
        data: {
          searchId: 'search-0002',
          workspaceId: WS,
          mode: 'vector',
          citations: [
            { pageId: 'page-0001', version: 3 },
            { pageId: 'page-0002', version: 1 },
          ],
        },
      },
    ])
})

test('page search: a public pack tally records its pack slug and counts', () => {
  const tally = {
    searchId: 'search-0003',
    workspaceId: WS,
    mode: 'text',
    packSlug: 'acme-faq',
    citations: [{ pageId: 'page-0001', version: 3, count: 7 }],
  }
  given(pageSearch, [])
    .when({ type: 'RecordPageSearch', data: tally })
    .then([
      {
        type: 'PageSearchServed',
        data: {
          searchId: 'search-0003',
          workspaceId: WS,
          mode: 'text',
          packSlug: 'acme-faq',
          citations: [{ pageId: 'page-0001', version: 3, count: 7 }],
        },
      },
    ])
})

test('page search: recording a page search that is already recorded records nothing', () => {
  const recorded = { type: 'PageSearchServed' as const, data: pageServed }
  given(pageSearch, [recorded]).when({ type: 'RecordPageSearch', data: pageServed }).thenNothing()
})

test.run()
