import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type PageEvent, page } from '../../domain/pages/page'
import type { Person } from '../../domain/shared'
import { given } from '../../testkit/spec'
import {
  OTHER_WS,
  PAGE,
  WS,
  agent,
  alice,
  atV2,
  bob,
  created,
  deleteCmd,
  human,
  pageDeleted,
  v1,
  v2,
} from '../helpers/fixtures/pages'

const test = suite('page, proposal and collection deciders: page')

const verifiedV1: PageEvent = { type: 'PageVerified', data: { pageId: PAGE, version: 1, by: alice } }

// CreatePage

test('page: create records the page and its first version in create mode', () => {
  const r = given(page, []).when({
    type: 'CreatePage',
    data: {
      pageId: PAGE,
      workspaceId: WS,
      title: 'Onboarding',
      collectionId: 'col-1',
      content: 'Hello\n',
      author: human,
      added: 1,
      removed: 0,
    },
  }).outcome
  assert.equal(r, { events: [created, v1] })
})

test('page: create without a collection leaves collectionId off the PageCreated event', () => {
  const r = given(page, []).when({
    type: 'CreatePage',
    data: { pageId: PAGE, workspaceId: WS, title: 'Loose', content: 'x', author: agent, added: 1, removed: 0 },
  }).outcome
  assert.equal(r, {
    events: [
      { type: 'PageCreated', data: { pageId: PAGE, workspaceId: WS, title: 'Loose' } },
      {
        type: 'PageVersionWritten',
        data: { pageId: PAGE, version: 1, mode: 'create', content: 'x', author: agent, added: 1, removed: 0 },
      },
    ],
  })
})

test('page: create from an approved proposal carries proposalId and approver on version 1 only', () => {
  const r = given(page, []).when({
    type: 'CreatePage',
    data: {
      pageId: PAGE,
      workspaceId: WS,
      title: 'Onboarding',
      content: 'Hello\n',
      author: agent,
      added: 1,
      removed: 0,
      proposalId: 'prop-1',
      approvedBy: alice,
    },
  }).outcome
  assert.equal(r, {
    events: [
      { type: 'PageCreated', data: { pageId: PAGE, workspaceId: WS, title: 'Onboarding' } },
      {
        type: 'PageVersionWritten',
        data: {
          pageId: PAGE,
          version: 1,
          mode: 'create',
          content: 'Hello\n',
          author: agent,
          added: 1,
          removed: 0,
          proposalId: 'prop-1',
          approvedBy: alice,
        },
      },
    ],
  })
})

const createCmd = (extra: { proposalId?: string } = {}) =>
  ({
    type: 'CreatePage',
    data: {
      pageId: PAGE,
      workspaceId: WS,
      title: 'Onboarding',
      content: 'Hi',
      author: human,
      added: 1,
      removed: 0,
      ...extra,
    },
  }) as const

test('page: create over an existing page is CONFLICT', () => {
  given(page, [created, v1]).when(createCmd()).thenFails('CONFLICT')
})

test('page: create over a deleted page is CONFLICT (its id is not reused)', () => {
  given(page, [created, v1, pageDeleted]).when(createCmd()).thenFails('CONFLICT')
})

test('page: create retried for a proposal the page already published is satisfied with no events', () => {
  const fromProposal: PageEvent = { ...v1, data: { ...v1.data, proposalId: 'prop-1', approvedBy: alice } }
  given(page, [created, fromProposal])
    .when(createCmd({ proposalId: 'prop-1' }))
    .thenNothing()
})

test('page: create for another proposal over an existing page is CONFLICT', () => {
  const fromProposal: PageEvent = { ...v1, data: { ...v1.data, proposalId: 'prop-1', approvedBy: alice } }
  given(page, [created, fromProposal])
    .when(createCmd({ proposalId: 'prop-2' }))
    .thenFails('CONFLICT')
})

test('page: create retried for a published proposal after the page was deleted is CONFLICT', () => {
  const fromProposal: PageEvent = { ...v1, data: { ...v1.data, proposalId: 'prop-1', approvedBy: alice } }
  given(page, [created, fromProposal, pageDeleted])
    .when(createCmd({ proposalId: 'prop-1' }))
    .thenFails('CONFLICT')
})

// ChangeCollection

const moveCmd = (workspaceId: string, collectionId: string | null) =>
  ({ type: 'ChangeCollection', workspaceId, data: { pageId: PAGE, collectionId } }) as const

test('page: moving to another collection records the change', () => {
  given(page, atV2)
    .when(moveCmd(WS, 'col-2'))
    .then([{ type: 'PageCollectionChanged', data: { pageId: PAGE, collectionId: 'col-2' } }])
})

test('page: taking a page out of its collection records a null collection', () => {
  given(page, atV2)
    .when(moveCmd(WS, null))
    .then([{ type: 'PageCollectionChanged', data: { pageId: PAGE, collectionId: null } }])
})

test('page: moving to the collection it is already in records nothing', () => {
  given(page, atV2).when(moveCmd(WS, 'col-1')).thenNothing()
  const moved: PageEvent = { type: 'PageCollectionChanged', data: { pageId: PAGE, collectionId: 'col-2' } }
  given(page, [...atV2, moved])
    .when(moveCmd(WS, 'col-2'))
    .thenNothing()
  const loose: PageEvent = { type: 'PageCreated', data: { pageId: PAGE, workspaceId: WS, title: 'Loose' } }
  given(page, [loose, v1]).when(moveCmd(WS, null)).thenNothing()
})

test('page: moving a missing, foreign or deleted page is NOT_FOUND', () => {
  given(page, []).when(moveCmd(WS, 'col-2')).thenFails('NOT_FOUND')
  given(page, atV2).when(moveCmd(OTHER_WS, 'col-2')).thenFails('NOT_FOUND')
  given(page, [...atV2, pageDeleted])
    .when(moveCmd(WS, 'col-2'))
    .thenFails('NOT_FOUND')
})

// VerifyPage

const verifyCmd = (workspaceId: string, by: Person = alice) =>
  ({ type: 'VerifyPage', workspaceId, data: { pageId: PAGE, by } }) as const

test('page: verify pins the latest version with the verifier', () => {
  given(page, atV2)
    .when(verifyCmd(WS, bob))
    .then([{ type: 'PageVerified', data: { pageId: PAGE, version: 2, by: bob } }])
})

test('page: verifying a page already verified at its latest version records nothing', () => {
  given(page, [created, v1, verifiedV1]).when(verifyCmd(WS, bob)).thenNothing()
})

test('page: a page written since its verification can be verified again at the new version', () => {
  given(page, [created, v1, verifiedV1, v2])
    .when(verifyCmd(WS))
    .then([{ type: 'PageVerified', data: { pageId: PAGE, version: 2, by: alice } }])
})

test('page: a version that restores the verified content carries the pin: verifying it again records nothing', () => {
  const v3: PageEvent = {
    type: 'PageVersionWritten',
    data: {
      pageId: PAGE,
      version: 3,
      mode: 'revert',
      content: 'Hello\n',
      author: human,
      added: 0,
      removed: 1,
      revertedFrom: 1,
    },
  }
  const state = [created, v1, verifiedV1, v2, v3].reduce(page.evolve, page.initialState())
  assert.equal(state.status === 'active' && [state.verifiedVersion, state.verifiedContent], [3, 'Hello\n'])
  given(page, [created, v1, verifiedV1, v2, v3]).when(verifyCmd(WS, bob)).thenNothing()
  // Content a person verified once, but not the pin's now, carries nothing.
  const verifiedV2: PageEvent = { type: 'PageVerified', data: { pageId: PAGE, version: 2, by: alice } }
  given(page, [created, v1, verifiedV1, v2, verifiedV2, v3])
    .when(verifyCmd(WS, bob))
    .then([{ type: 'PageVerified', data: { pageId: PAGE, version: 3, by: bob } }])
})

test('page: verifying a missing, foreign or deleted page is NOT_FOUND', () => {
  given(page, []).when(verifyCmd(WS)).thenFails('NOT_FOUND')
  given(page, atV2).when(verifyCmd(OTHER_WS)).thenFails('NOT_FOUND')
  given(page, [...atV2, pageDeleted])
    .when(verifyCmd(WS))
    .thenFails('NOT_FOUND')
})

// DeletePage

test('page: delete records PageDeleted', () => {
  given(page, atV2).when(deleteCmd(WS)).then([pageDeleted])
})

test('page: deleting a page already deleted is NOT_FOUND (not satisfied)', () => {
  given(page, [...atV2, pageDeleted])
    .when(deleteCmd(WS))
    .thenFails('NOT_FOUND')
})

test("page: deleting a missing page or another workspace's page is NOT_FOUND", () => {
  given(page, []).when(deleteCmd(WS)).thenFails('NOT_FOUND')
  given(page, atV2).when(deleteCmd(OTHER_WS)).thenFails('NOT_FOUND')
})

// evolve

test('page: evolve keeps the stream revision of each version, skipping non-version events', () => {
  const moved: PageEvent = { type: 'PageCollectionChanged', data: { pageId: PAGE, collectionId: null } }
  const state = [created, v1, verifiedV1, moved, v2].reduce(page.evolve, page.initialState())
  assert.ok(state.status === 'active')
  if (state.status !== 'active') return
  assert.equal(state.versionAt, [1, 4])
  assert.is(state.events, 5)
  assert.is(state.version, 2)
  assert.is(state.content, 'Hello\nWorld\n')
  assert.is(state.verifiedVersion, 1)
  assert.is(state.collectionId, null)
})

test.run()
