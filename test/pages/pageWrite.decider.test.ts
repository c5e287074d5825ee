import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type PageEvent, page } from '../../domain/pages/page'
import { given } from '../../testkit/spec'
import {
  OTHER_WS,
  PAGE,
  WS,
  agent,
  atV2,
  bob,
  created,
  human,
  pageDeleted,
  revertCmd,
  v1,
  v2,
} from '../helpers/fixtures/pages'

const test = suite('page, proposal and collection deciders: page writes and reverts')

// WritePage

test('page: append writes the next version with the given content and size', () => {
  const r = given(page, [created, v1]).when({
    type: 'WritePage',
    workspaceId: WS,
    data: { pageId: PAGE, mode: 'append', content: 'Hello\nWorld\n', author: human, added: 1, removed: 0 },
  }).outcome
  assert.equal(r, { events: [v2] })
})

test('page: replace with the current expectedVersion writes the next version', () => {
  const r = given(page, atV2).when({
    type: 'WritePage',
    workspaceId: WS,
    data: { pageId: PAGE, mode: 'replace', content: 'Bye\n', author: agent, added: 1, removed: 2, expectedVersion: 2 },
  }).outcome
  assert.equal(r, {
    events: [
      {
        type: 'PageVersionWritten',
        data: { pageId: PAGE, version: 3, mode: 'replace', content: 'Bye\n', author: agent, added: 1, removed: 2 },
      },
    ],
  })
})

test('page: a write from an approved proposal records proposalId and approver', () => {
  const r = given(page, atV2).when({
    type: 'WritePage',
    workspaceId: WS,
    data: {
      pageId: PAGE,
      mode: 'replace',
      content: 'Proposed\n',
      author: agent,
      added: 1,
      removed: 2,
      proposalId: 'prop-7',
      approvedBy: bob,
    },
  }).outcome
  assert.equal(r, {
    events: [
      {
        type: 'PageVersionWritten',
        data: {
          pageId: PAGE,
          version: 3,
          mode: 'replace',
          content: 'Proposed\n',
          author: agent,
          added: 1,
          removed: 2,
          proposalId: 'prop-7',
          approvedBy: bob,
        },
      },
    ],
  })
})

const writeCmd = (workspaceId: string, extra: { expectedVersion?: number; content?: string } = {}) =>
  ({
    type: 'WritePage',
    workspaceId,
    data: { pageId: PAGE, mode: 'replace', content: 'New\n', author: human, added: 1, removed: 1, ...extra },
  }) as const

test('page: replace with a stale expectedVersion is VERSION_CONFLICT naming the current version', () => {
  given(page, atV2)
    .when(writeCmd(WS, { expectedVersion: 1 }))
    .thenFails('VERSION_CONFLICT')
  const err = given(page, atV2).when(writeCmd(WS, { expectedVersion: 1 })).refusal
  assert.equal(err?.details, ['currentVersion: 2'])
  assert.match(err?.message ?? '', 'version 2, not 1')
})

test('page: an expectedVersion ahead of the page is VERSION_CONFLICT too', () => {
  given(page, atV2)
    .when(writeCmd(WS, { expectedVersion: 3 }))
    .thenFails('VERSION_CONFLICT')
})

test('page: writing the same content again records nothing', () => {
  given(page, atV2)
    .when(writeCmd(WS, { content: 'Hello\nWorld\n' }))
    .thenNothing()
  given(page, atV2)
    .when(writeCmd(WS, { content: 'Hello\nWorld\n', expectedVersion: 2 }))
    .thenNothing()
})

test('page: the same content with a stale expectedVersion is still VERSION_CONFLICT', () => {
  given(page, atV2)
    .when(writeCmd(WS, { content: 'Hello\nWorld\n', expectedVersion: 1 }))
    .thenFails('VERSION_CONFLICT')
})

test('page: a write retried for a proposal already published is satisfied, even with a stale expectedVersion', () => {
  const published: PageEvent = { ...v2, data: { ...v2.data, proposalId: 'prop-7', approvedBy: bob } }
  const v3: PageEvent = {
    type: 'PageVersionWritten',
    data: { pageId: PAGE, version: 3, mode: 'replace', content: 'Later\n', author: human, added: 1, removed: 2 },
  }
  const r = given(page, [created, v1, published, v3]).when({
    type: 'WritePage',
    workspaceId: WS,
    data: {
      pageId: PAGE,
      mode: 'append',
      content: 'Hello\nWorld\n',
      author: agent,
      added: 1,
      removed: 0,
      proposalId: 'prop-7',
      approvedBy: bob,
      expectedVersion: 1,
    },
  }).outcome
  assert.equal(r, { events: [] })
})

test('page: writing to a page that does not exist is NOT_FOUND', () => {
  given(page, []).when(writeCmd(WS)).thenFails('NOT_FOUND')
})

test("page: writing to another workspace's page is NOT_FOUND", () => {
  given(page, atV2).when(writeCmd(OTHER_WS)).thenFails('NOT_FOUND')
})

test('page: writing to a deleted page is NOT_FOUND', () => {
  given(page, [...atV2, pageDeleted])
    .when(writeCmd(WS))
    .thenFails('NOT_FOUND')
})

// RevertPage

test('page: revert writes a new version in revert mode naming the version restored', () => {
  given(page, atV2)
    .when(revertCmd(WS, 1, { expectedVersion: 2 }))
    .then([
      {
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
      },
    ])
})

test('page: revert with a stale expectedVersion is VERSION_CONFLICT', () => {
  given(page, atV2)
    .when(revertCmd(WS, 1, { expectedVersion: 1 }))
    .thenFails('VERSION_CONFLICT')
  assert.equal(given(page, atV2).when(revertCmd(WS, 1, { expectedVersion: 1 })).refusal?.details, ['currentVersion: 2'])
})

test('page: revert to version 0 is VALIDATION_ERROR naming the range', () => {
  given(page, atV2).when(revertCmd(WS, 0)).thenFails('VALIDATION_ERROR')
  assert.equal(given(page, atV2).when(revertCmd(WS, 0)).refusal?.details, ['version: must be between 1 and 2'])
})

test('page: revert to a version past the latest is VALIDATION_ERROR', () => {
  given(page, atV2).when(revertCmd(WS, 3)).thenFails('VALIDATION_ERROR')
})

test('page: a stale expectedVersion is checked before the version range', () => {
  given(page, atV2)
    .when(revertCmd(WS, 9, { expectedVersion: 1 }))
    .thenFails('VERSION_CONFLICT')
})

test('page: revert to content the page already has records nothing', () => {
  given(page, atV2)
    .when(revertCmd(WS, 2, { content: 'Hello\nWorld\n' }))
    .thenNothing()
})

test('page: reverting a missing, foreign or deleted page is NOT_FOUND', () => {
  given(page, []).when(revertCmd(WS, 1)).thenFails('NOT_FOUND')
  given(page, atV2).when(revertCmd(OTHER_WS, 1)).thenFails('NOT_FOUND')
  given(page, [...atV2, pageDeleted])
    .when(revertCmd(WS, 1))
    .thenFails('NOT_FOUND')
})

test.run()
