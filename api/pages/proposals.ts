import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { approveProposal, rejectProposal } from '../../commands/pages/proposals'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import type { Database } from '../../adapters/db'
import { type AnyRoute, readBack, route } from '../route'
import { listProposals, proposalView, readProposal } from '../../queries/pages/proposals'
import { personOf } from './shapes'
import { pageDeps } from '../../commands/pages/pages'
import * as answers from './answers'

const IdParam = t.type({ id: c.id })

const proposalReply = (db: Database, workspaceId: string, id: string, position: number) =>
  readBack(position, async () => {
    const r = await readProposal(db.pool, workspaceId, id)
    return r ? proposalView(db.pool, r) : { id }
  })

/** The agents' writes held for review: listed, read, approved or rejected by people. */
export const proposalRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/proposals',
    response: answers.ProposalList,
    tag: 'proposals',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Held agent writes, newest first, each with its page name, size of change and diff',
    query: c.exact({
      status: t.keyof({ pending: null, approved: null, rejected: null }),
      page: c.intFromString(1, 1_000_000),
      limit: c.intFromString(1, 100),
    }),
    uses: ['db'],
    handler: async ({ query, identity }, { db }) => {
      const listed = await listProposals(
        db.pool,
        memberOf(identity).workspaceId,
        query.status,
        query.page ?? 1,
        query.limit ?? 20,
      )
      return E.right({
        data: {
          items: await Promise.all(listed.rows.map((r) => proposalView(db.pool, r))),
          total: listed.total,
          pagination: listed.pagination,
        },
      })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/proposals/:id',
    response: answers.Proposal,
    tag: 'proposals',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'One proposal',
    params: IdParam,
    uses: ['db'],
    handler: async ({ params, identity }, { db }) => {
      const r = await readProposal(db.pool, memberOf(identity).workspaceId, params.id)
      return r ? E.right({ data: await proposalView(db.pool, r) }) : fail('NOT_FOUND', 'proposal not found')
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/proposals/:id/approve',
    response: answers.DecidedProposal,
    tag: 'proposals',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Publish a proposal as a version by its agent; if the page moved on since, only with { confirm: true }',
    params: IdParam,
    body: c.exact({ confirm: t.boolean }),
    uses: ['db', 'store', 'embedder'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const approved = await approveProposal(
        pageDeps(deps),
        command,
        workspaceId,
        params.id,
        personOf(identity),
        body.confirm === true,
      )
      if (E.isLeft(approved)) return approved
      return proposalReply(deps.db, workspaceId, params.id, approved.right.position)
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/proposals/:id/reject',
    response: answers.DecidedProposal,
    tag: 'proposals',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Archive a proposal; the page is untouched',
    params: IdParam,
    body: c.exact({ reason: c.string(1, 1000) }),
    uses: ['db', 'store'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const rejected = await rejectProposal(
        deps.store,
        command,
        workspaceId,
        params.id,
        personOf(identity),
        body.reason,
      )
      if (E.isLeft(rejected)) return rejected
      return proposalReply(deps.db, workspaceId, params.id, rejected.right.position)
    },
  }),
]
