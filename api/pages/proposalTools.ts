import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { fail } from '../../domain/shared'
import { readProposal } from '../../queries/pages/proposals'
import * as c from '../codecs'
import { Undo } from './pageTools'
import { READS, defineTool } from '../tools/tool'

const d = c.described

const ProposalStatusArguments = c.object({ proposalId: c.id }, {})

const ProposalStatus = c.object(
  {
    proposalId: d(t.string, 'The proposal id'),
    status: d(t.keyof({ pending: null, approved: null, rejected: null }), 'Where the review stands'),
    pageId: d(t.string, 'The page it changes (or would create)'),
    pageTitle: d(t.string, 'That page title'),
  },
  {
    version: d(t.number, 'The version it became (approved)'),
    decidedAt: d(t.string, 'When it was approved or rejected (ISO 8601)'),
    reason: d(t.string, "The reviewer's reason (rejected)"),
    undo: d(Undo, 'The call that proposes taking an approved change back (a person reviews it too)'),
  },
)

/** An agent following a write held for review. */
const proposalStatus = defineTool({
  name: 'native:kb_proposal_status',
  description:
    'Follow a write that was held for review (page_write answered held: true): pending, approved (with the ' +
    'version it became) or rejected (with the reason).',
  permission: 'read:tools',
  annotations: READS,
  arguments: ProposalStatusArguments,
  argumentNotes: { proposalId: 'The proposalId page_write answered' },
  output: ProposalStatus,
  run: async (deps, { workspaceId }, args) => {
    const r = await readProposal(deps.db.pool, workspaceId, args.proposalId)
    if (!r) return fail('NOT_FOUND', 'proposal not found')
    return E.right({
      data: {
        proposalId: r.id,
        status: r.status as 'pending' | 'approved' | 'rejected',
        pageId: r.page_id,
        pageTitle: r.title,
        ...(r.version ? { version: r.version } : {}),
        ...(r.decided_at ? { decidedAt: r.decided_at.toISOString() } : {}),
        ...(r.reason ? { reason: r.reason } : {}),
        ...(r.status === 'approved' && r.version && r.version > 1
          ? {
              undo: {
                tool: 'page_revert' as const,
                arguments: { pageId: r.page_id, version: r.version - 1, expectedVersion: r.version },
              },
            }
          : {}),
      },
    })
  },
})

export const proposalTools = [proposalStatus]
