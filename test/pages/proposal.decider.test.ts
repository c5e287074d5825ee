import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type ProposalEvent, type ProposalSubmitted, proposal } from '../../domain/pages/proposal'
import { given } from '../../testkit/spec'
import { PAGE, WS, agent, alice, bob } from '../helpers/fixtures/pages'

const test = suite('page, proposal and collection deciders: proposal')

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

test.run()
