import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type CollectionEvent, collection } from '../../domain/pages/collection'
import { type PageEvent, page } from '../../domain/pages/page'
import { type ProposalEvent, type ProposalSubmitted, proposal } from '../../domain/pages/proposal'
import type { Author, Person } from '../../domain/shared'
import { given } from '../../testkit/spec'

const test = suite('page, proposal and collection deciders')

// ---------------------------------------------------------------- page

const WS = 'ws-1'
const OTHER_WS = 'ws-2'
const PAGE = 'page-1'
const alice: Person = { userId: 'user-alice', name: 'Alice' }
const bob: Person = { userId: 'user-bob', name: 'Bob' }
const human: Author = { kind: 'human', userId: 'user-alice', name: 'Alice' }
const agent: Author = { kind: 'agent', client: 'client-claude', skill: 'kb-writer' }

const created: PageEvent = {
  type: 'PageCreated',
  data: { pageId: PAGE, workspaceId: WS, title: 'Onboarding', collectionId: 'col-1' },
}
const v1: PageEvent = {
  type: 'PageVersionWritten',
  data: { pageId: PAGE, version: 1, mode: 'create', content: 'Hello\n', author: human, added: 1, removed: 0 },
}
const v2: PageEvent = {
  type: 'PageVersionWritten',
  data: { pageId: PAGE, version: 2, mode: 'append', content: 'Hello\nWorld\n', author: human, added: 1, removed: 0 },
}
const pageDeleted: PageEvent = { type: 'PageDeleted', data: { pageId: PAGE } }
const verifiedV1: PageEvent = { type: 'PageVerified', data: { pageId: PAGE, version: 1, by: alice } }
const atV2 = [created, v1, v2]

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

const revertCmd = (
  workspaceId: string,
  toVersion: number,
  extra: { expectedVersion?: number; content?: string } = {},
) =>
  ({
    type: 'RevertPage',
    workspaceId,
    data: { pageId: PAGE, toVersion, content: 'Hello\n', author: human, added: 0, removed: 1, ...extra },
  }) as const

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

test('page: verifying a missing, foreign or deleted page is NOT_FOUND', () => {
  given(page, []).when(verifyCmd(WS)).thenFails('NOT_FOUND')
  given(page, atV2).when(verifyCmd(OTHER_WS)).thenFails('NOT_FOUND')
  given(page, [...atV2, pageDeleted])
    .when(verifyCmd(WS))
    .thenFails('NOT_FOUND')
})

// DeletePage

const deleteCmd = (workspaceId: string) => ({ type: 'DeletePage', workspaceId, data: { pageId: PAGE } }) as const

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

// An agent's undo: only over versions it wrote itself.

// Agents by the API key they wrote with (its client name is theirs to choose, so it decides nothing).
const byAgent = (version: number, keyId: string, extra: object = {}): PageEvent => ({
  type: 'PageVersionWritten',
  data: {
    pageId: PAGE,
    version,
    mode: version === 1 ? 'create' : 'append',
    content: `v${version}`,
    author: { kind: 'agent', client: 'claude', keyId },
    added: 1,
    removed: 0,
    ...extra,
  },
})
const agentPage = [created, byAgent(1, 'key-1'), byAgent(2, 'key-1')]

test("page: an agent's delete of a page whose every version it wrote records PageDeleted", () => {
  given(page, agentPage)
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .then([pageDeleted])
})

test("page: an agent's delete is FORBIDDEN once a person, another agent or an approval wrote a version", () => {
  given(page, [created, byAgent(1, 'key-1'), v2])
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
  given(page, agentPage)
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-2' })
    .thenFails('FORBIDDEN')
  const approved = [created, byAgent(1, 'key-1', { proposalId: 'prop-1', approvedBy: alice })]
  given(page, approved)
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
})

test("page: an agent's revert passes over its own later versions only, and names the first that is not", () => {
  const mixed = [created, v1, byAgent(2, 'key-1'), byAgent(3, 'key-2')]
  const own = given(page, [created, v1, byAgent(2, 'key-1')])
    .when({
      ...revertCmd(WS, 1),
      ownWritesOf: 'key-1',
    })
    .decided()
  assert.is(own[0]?.type, 'PageVersionWritten')
  const refused = given(page, mixed).when({ ...revertCmd(WS, 1), ownWritesOf: 'key-1' }).refusal
  assert.is(refused?.code, 'FORBIDDEN')
  assert.match(refused?.message ?? '', /version 3 of this page was not written with your API key/)
  // A revert to the version right before the other agent's is still someone else's to undo.
  given(page, mixed)
    .when({ ...revertCmd(WS, 2), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
  // A version an agent wrote before keys were recorded is no key's to undo.
  const unkeyed: PageEvent = {
    type: 'PageVersionWritten',
    data: { pageId: PAGE, version: 1, mode: 'create', content: 'x', author: agent, added: 1, removed: 0 },
  }
  given(page, [created, unkeyed])
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
  // A person's revert is not limited to their own versions.
  assert.ok('events' in given(page, mixed).when(revertCmd(WS, 1)).outcome)
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

// ---------------------------------------------------------------- proposal

const submitted: ProposalSubmitted['data'] = {
  proposalId: 'prop-1',
  workspaceId: WS,
  pageId: PAGE,
  newPage: false,
  title: 'Onboarding',
  collectionId: 'col-1',
  mode: 'append',
  content: 'Hello\nWorld\n',
  baseVersion: 1,
  author: agent,
  added: 1,
  removed: 0,
}
const proposalSubmitted: ProposalEvent = { type: 'ProposalSubmitted', data: submitted }
const proposalApproved: ProposalEvent = {
  type: 'ProposalApproved',
  data: { proposalId: 'prop-1', by: alice, version: 2 },
}
const proposalRejected: ProposalEvent = {
  type: 'ProposalRejected',
  data: { proposalId: 'prop-1', by: bob, reason: 'off topic' },
}
const approveCmd = { type: 'ApproveProposal', data: { proposalId: 'prop-1', by: alice, version: 2 } } as const
const rejectCmd = { type: 'RejectProposal', data: { proposalId: 'prop-1', by: bob, reason: 'off topic' } } as const

// SubmitProposal

test('proposal: submit records the proposal as given', () => {
  given(proposal, []).when({ type: 'SubmitProposal', data: submitted }).then([proposalSubmitted])
})

test('proposal: submit for a new page records newPage and create mode', () => {
  const data = { ...submitted, proposalId: 'prop-2', pageId: 'page-new', newPage: true, mode: 'create' as const }
  given(proposal, [])
    .when({ type: 'SubmitProposal', data: { ...data, baseVersion: 0 } })
    .then([{ type: 'ProposalSubmitted', data: { ...data, baseVersion: 0 } }])
})

test('proposal: submit retried for a proposal already submitted records nothing', () => {
  given(proposal, [proposalSubmitted]).when({ type: 'SubmitProposal', data: submitted }).thenNothing()
})

test('proposal: submit for an id already approved or rejected records nothing', () => {
  const cmd = { type: 'SubmitProposal', data: submitted } as const
  given(proposal, [proposalSubmitted, proposalApproved]).when(cmd).thenNothing()
  given(proposal, [proposalSubmitted, proposalRejected]).when(cmd).thenNothing()
})

// ApproveProposal

test('proposal: approving a pending proposal records the approver and the version published', () => {
  given(proposal, [proposalSubmitted]).when(approveCmd).then([proposalApproved])
})

test('proposal: approving a proposal that does not exist is NOT_FOUND', () => {
  given(proposal, []).when(approveCmd).thenFails('NOT_FOUND')
})

test('proposal: approving an approved proposal is CONFLICT naming its status', () => {
  given(proposal, [proposalSubmitted, proposalApproved]).when(approveCmd).thenFails('CONFLICT')
  assert.equal(given(proposal, [proposalSubmitted, proposalApproved]).when(approveCmd).refusal?.details, [
    'status: approved',
  ])
})

test('proposal: approving a rejected proposal is CONFLICT', () => {
  given(proposal, [proposalSubmitted, proposalRejected]).when(approveCmd).thenFails('CONFLICT')
  assert.equal(given(proposal, [proposalSubmitted, proposalRejected]).when(approveCmd).refusal?.details, [
    'status: rejected',
  ])
})

// RejectProposal

test('proposal: rejecting a pending proposal records the reviewer and reason', () => {
  given(proposal, [proposalSubmitted]).when(rejectCmd).then([proposalRejected])
})

test('proposal: rejecting without a reason records no reason', () => {
  const r = given(proposal, [proposalSubmitted]).when({
    type: 'RejectProposal',
    data: { proposalId: 'prop-1', by: bob },
  }).outcome
  assert.equal(r, { events: [{ type: 'ProposalRejected', data: { proposalId: 'prop-1', by: bob } }] })
})

test('proposal: rejecting a proposal that does not exist is NOT_FOUND', () => {
  given(proposal, []).when(rejectCmd).thenFails('NOT_FOUND')
})

test('proposal: rejecting an approved or already rejected proposal is CONFLICT', () => {
  given(proposal, [proposalSubmitted, proposalApproved]).when(rejectCmd).thenFails('CONFLICT')
  given(proposal, [proposalSubmitted, proposalRejected]).when(rejectCmd).thenFails('CONFLICT')
  assert.equal(given(proposal, [proposalSubmitted, proposalRejected]).when(rejectCmd).refusal?.details, [
    'status: rejected',
  ])
})

// ---------------------------------------------------------------- collection

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
