import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import { type Person } from '../../domain/pages/page'
import { type DomainError, fail } from '../../domain/shared'
import { activeCollection } from './collections'
import { type CommandContext, answered } from '../handle'
import { type PageDeps, createPage, writePage } from './pages'
import { pages, proposals } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

const loadProposal = async (store: EventStore, workspaceId: string, proposalId: string) => {
  const { state } = await proposals.on(store, proposalId).load()
  return state.status !== 'none' && state.proposal.workspaceId === workspaceId ? state : undefined
}

/**
 * Publishes a held write as a normal version by its agent, with the approver recorded. When the
 * page has moved on since the proposal was made, only an explicit `confirm` publishes it (the
 * newer versions stay in the history). A retried approval publishes nothing twice.
 */
export const approveProposal = async (
  deps: PageDeps,
  ctx: CommandContext,
  workspaceId: string,
  proposalId: string,
  by: Person,
  confirm: boolean,
): Result<{ proposalId: string; status: 'approved'; pageId: string; version: number }> => {
  const { store } = deps
  const state = await loadProposal(store, workspaceId, proposalId)
  if (!state) return fail('NOT_FOUND', 'proposal not found')
  if (state.status !== 'pending')
    return fail('CONFLICT', `the proposal is already ${state.status}`, [`status: ${state.status}`])
  const p = state.proposal
  const current = await pages.on(store, p.pageId).load()
  const live = current.state.status === 'active' ? current.state : undefined
  let written: E.Either<DomainError, { version: number; position: number }>
  if (live && live.published[proposalId]) written = E.right({ version: live.published[proposalId], position: 0 })
  else if (p.newPage) {
    if (current.state.status !== 'none')
      return fail('CONFLICT', 'the page this proposal would create has been deleted', [
        'pageId: the page was deleted; reject the proposal',
      ])
    // A collection deleted since leaves its pages outside any collection, this one too.
    const collectionId =
      p.collectionId && (await activeCollection(store, workspaceId, p.collectionId)) ? p.collectionId : undefined
    written = await createPage(deps, ctx, {
      workspaceId,
      pageId: p.pageId,
      title: p.title,
      content: p.content,
      author: p.author,
      collectionId,
      proposalId,
      approvedBy: by,
    })
  } else {
    if (!live)
      return fail('CONFLICT', `the page "${p.title}" has been deleted since the proposal was made`, [
        'pageId: the page was deleted; reject the proposal',
      ])
    if (live.version !== p.baseVersion && !confirm) {
      return fail(
        'VERSION_CONFLICT',
        `the page is at version ${live.version}, but the proposal was made against version ${p.baseVersion}: review ` +
          `the newer versions, then approve with "confirm": true to publish it anyway (they stay in the history)`,
        [`currentVersion: ${live.version}`, `baseVersion: ${p.baseVersion}`],
      )
    }
    written = await writePage(deps, ctx, {
      workspaceId,
      pageId: p.pageId,
      mode: p.mode === 'append' ? 'append' : 'replace',
      content: p.content,
      author: p.author,
      proposalId,
      approvedBy: by,
    })
  }
  if (E.isLeft(written)) return written
  const version = written.right.version
  const done = await proposals
    .on(store, proposalId)
    .handle({ type: 'ApproveProposal', data: { proposalId, by, version } }, ctx)
  return E.map((h: { position: number }) => ({
    proposalId,
    status: 'approved' as const,
    pageId: p.pageId,
    version,
    position: Math.max(h.position, written.right.position),
  }))(done)
}

/** Archives a held write; the page stays as it is. */
export const rejectProposal = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  proposalId: string,
  by: Person,
  reason?: string,
): Result<{ proposalId: string; status: 'rejected' }> => {
  if (!(await loadProposal(store, workspaceId, proposalId))) return fail('NOT_FOUND', 'proposal not found')
  const done = await proposals
    .on(store, proposalId)
    .handle({ type: 'RejectProposal', data: { proposalId, by, ...(reason ? { reason } : {}) } }, ctx)
  return answered({ proposalId, status: 'rejected' as const })(done)
}
