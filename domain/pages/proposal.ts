import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { Author, type Decider, Person, fail, assertNever } from '../shared'

/**
 * An agent's write held for review (its collection holds agent writes). It names the page it
 * would change (or the page it would create: `newPage`, with the id that page will get), the
 * version it was made against, and the page's content as it would become.
 */
export const ProposalSubmitted = t.type({
  type: t.literal('ProposalSubmitted'),
  data: t.type({
    proposalId: t.string,
    workspaceId: t.string,
    pageId: t.string,
    newPage: t.boolean,
    title: t.string,
    collectionId: t.string,
    mode: t.keyof({ create: null, append: null, replace: null }),
    content: t.string,
    baseVersion: t.number,
    author: Author,
    added: t.number,
    removed: t.number,
  }),
})
export type ProposalSubmitted = t.TypeOf<typeof ProposalSubmitted>
export const ProposalApproved = t.type({
  type: t.literal('ProposalApproved'),
  data: t.type({ proposalId: t.string, by: Person, version: t.number }),
})
export type ProposalApproved = t.TypeOf<typeof ProposalApproved>
export const ProposalRejected = t.type({
  type: t.literal('ProposalRejected'),
  data: t.intersection([t.type({ proposalId: t.string, by: Person }), t.partial({ reason: t.string })]),
})
export type ProposalRejected = t.TypeOf<typeof ProposalRejected>

export const ProposalEvent = t.union([ProposalSubmitted, ProposalApproved, ProposalRejected])
export type ProposalEvent = t.TypeOf<typeof ProposalEvent>

export type ProposalCommand =
  | { type: 'SubmitProposal'; data: ProposalSubmitted['data'] }
  | { type: 'ApproveProposal'; data: ProposalApproved['data'] }
  | { type: 'RejectProposal'; data: ProposalRejected['data'] }

export type ProposalStatus = 'pending' | 'approved' | 'rejected'
export type ProposalState = { status: 'none' } | { status: ProposalStatus; proposal: ProposalSubmitted['data'] }

const decided = (status: ProposalStatus) => fail('CONFLICT', `the proposal is already ${status}`, [`status: ${status}`])

export const proposal: Decider<ProposalCommand, ProposalEvent, ProposalState> = {
  events: ProposalEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'ProposalSubmitted':
        return { status: 'pending', proposal: event.data }
      case 'ProposalApproved':
        return state.status === 'none' ? state : { ...state, status: 'approved' }
      case 'ProposalRejected':
        return state.status === 'none' ? state : { ...state, status: 'rejected' }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (command.type === 'SubmitProposal') {
      if (state.status !== 'none') return E.right([])
      return E.right([{ type: 'ProposalSubmitted', data: command.data }])
    }
    if (state.status === 'none') return fail('NOT_FOUND', 'proposal not found')
    if (state.status !== 'pending') return decided(state.status)
    return E.right(
      command.type === 'ApproveProposal'
        ? [{ type: 'ProposalApproved', data: command.data }]
        : [{ type: 'ProposalRejected', data: command.data }],
    )
  },
}
