import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type CollectionEvent, collection } from '../../domain/pages/collection'
import { given } from '../../testkit/spec'
import { WS } from '../helpers/fixtures/pages'

const test = suite('page, proposal and collection deciders: collection')

const COL = 'col-1'
const colData = {
  collectionId: COL,
  workspaceId: WS,
  name: 'Handbook',
  description: 'How we work',
  writePolicy: 'open' as const,
}
const colCreated: CollectionEvent = { type: 'CollectionCreated', data: colData }
const colDeleted: CollectionEvent = { type: 'CollectionDeleted', data: { collectionId: COL } }
const colPublished: CollectionEvent = {
  type: 'CollectionPublished',
  data: { collectionId: COL, workspaceId: WS, slug: 'handbook' },
}
const publishCmd = (slug: string) =>
  ({ type: 'PublishCollection', data: { collectionId: COL, workspaceId: WS, slug } }) as const
const updateCmd = (changes: { name?: string; description?: string; writePolicy?: 'open' | 'hold_for_review' }) =>
  ({ type: 'UpdateCollection', data: { collectionId: COL, changes } }) as const
const deleteColCmd = { type: 'DeleteCollection', data: { collectionId: COL } } as const

// CreateCollection

test('collection: create records the collection as given', () => {
  given(collection, []).when({ type: 'CreateCollection', data: colData }).then([colCreated])
})

test('collection: create over an existing collection is CONFLICT', () => {
  given(collection, [colCreated]).when({ type: 'CreateCollection', data: colData }).thenFails('CONFLICT')
})

test('collection: create over a deleted collection is CONFLICT', () => {
  given(collection, [colCreated, colDeleted]).when({ type: 'CreateCollection', data: colData }).thenFails('CONFLICT')
})

// UpdateCollection

test('collection: update records only the fields that differ', () => {
  const r = given(collection, [colCreated]).when(
    updateCmd({ name: 'Handbook', description: 'How we work now', writePolicy: 'hold_for_review' }),
  ).outcome
  assert.equal(r, {
    events: [
      {
        type: 'CollectionUpdated',
        data: { collectionId: COL, changes: { description: 'How we work now', writePolicy: 'hold_for_review' } },
      },
    ],
  })
})

test('collection: a rename alone records just the name', () => {
  given(collection, [colCreated])
    .when(updateCmd({ name: 'Guide' }))
    .then([{ type: 'CollectionUpdated', data: { collectionId: COL, changes: { name: 'Guide' } } }])
})

test('collection: an update that changes nothing records nothing', () => {
  given(collection, [colCreated])
    .when(updateCmd({ name: 'Handbook', writePolicy: 'open' }))
    .thenNothing()
  given(collection, [colCreated]).when(updateCmd({})).thenNothing()
})

test('collection: an update is compared with the state after earlier updates', () => {
  const updated: CollectionEvent = {
    type: 'CollectionUpdated',
    data: { collectionId: COL, changes: { writePolicy: 'hold_for_review' } },
  }
  given(collection, [colCreated, updated])
    .when(updateCmd({ writePolicy: 'hold_for_review' }))
    .thenNothing()
  given(collection, [colCreated, updated])
    .when(updateCmd({ writePolicy: 'open' }))
    .then([{ type: 'CollectionUpdated', data: { collectionId: COL, changes: { writePolicy: 'open' } } }])
})

test('collection: updating a missing or deleted collection is NOT_FOUND', () => {
  given(collection, [])
    .when(updateCmd({ name: 'Guide' }))
    .thenFails('NOT_FOUND')
  given(collection, [colCreated, colDeleted])
    .when(updateCmd({ name: 'Guide' }))
    .thenFails('NOT_FOUND')
})

// PublishCollection

test('collection: publish records the slug', () => {
  given(collection, [colCreated]).when(publishCmd('handbook')).then([colPublished])
})

test('collection: publishing again under the same slug records nothing', () => {
  given(collection, [colCreated, colPublished]).when(publishCmd('handbook')).thenNothing()
})

test('collection: publishing under another slug once published is CONFLICT naming the slug', () => {
  given(collection, [colCreated, colPublished]).when(publishCmd('guide')).thenFails('CONFLICT')
  assert.equal(given(collection, [colCreated, colPublished]).when(publishCmd('guide')).refusal?.details, [
    'collectionId: already published as handbook',
  ])
})

test('collection: publishing a missing or deleted collection is NOT_FOUND', () => {
  given(collection, []).when(publishCmd('handbook')).thenFails('NOT_FOUND')
  given(collection, [colCreated, colDeleted]).when(publishCmd('handbook')).thenFails('NOT_FOUND')
  given(collection, [colCreated, colPublished, colDeleted]).when(publishCmd('handbook')).thenFails('NOT_FOUND')
})

// DeleteCollection

test('collection: delete records CollectionDeleted, published or not', () => {
  given(collection, [colCreated]).when(deleteColCmd).then([colDeleted])
  given(collection, [colCreated, colPublished]).when(deleteColCmd).then([colDeleted])
})

test('collection: deleting a collection already deleted is NOT_FOUND (not satisfied)', () => {
  given(collection, [colCreated, colDeleted]).when(deleteColCmd).thenFails('NOT_FOUND')
})

test('collection: deleting a collection that does not exist is NOT_FOUND', () => {
  given(collection, []).when(deleteColCmd).thenFails('NOT_FOUND')
})

test.run()
