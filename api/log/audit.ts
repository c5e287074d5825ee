import * as E from 'fp-ts/Either'
import * as answers from './answers'
import * as t from 'io-ts'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { auditEvents } from '../../queries/log/audit'
import { type AnyRoute, route } from '../route'

const Query = t.partial({
  page: c.intFromString(1, 1_000_000),
  limit: c.intFromString(1, 100),
  after: c.intFromString(0, Number.MAX_SAFE_INTEGER),
  streamId: c.string(1, 300),
  type: c.string(1, 200),
  actor: c.string(1, 300),
})

/** The workspace's events for its owners and admins: newest first, or forwards after a position. */
export const auditRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/audit/events',
    response: answers.AuditEvents,
    tag: 'audit',
    auth: 'bearer',
    summary: "The workspace's events (owners and admins)",
    managers: 'the audit trail is for workspace owners and admins',
    query: Query,
    uses: ['db'],
    handler: async ({ identity: who, query }, { db }) => {
      const identity = memberOf(who)
      const filters = { streamId: query.streamId, type: query.type, actor: query.actor, after: query.after }
      const data = await auditEvents(db.pool, identity.workspaceId, filters, query.page ?? 1, query.limit ?? 20)
      return E.right({ data })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/audit/head',
    response: answers.ChainHead,
    tag: 'audit',
    auth: 'bearer',
    summary: "The head of the workspace's hash chain of events, to publish elsewhere (owners and admins)",
    managers: 'the hash chain is for workspace owners and admins',
    uses: ['store'],
    handler: async ({ identity: who }, { store }) => {
      const identity = memberOf(who)
      if (!store.chainHead) return fail('SERVICE_UNAVAILABLE', 'the event store in use keeps no hash chain')
      const head = await store.chainHead(identity.workspaceId)
      return E.right({
        data: {
          workspaceId: identity.workspaceId,
          position: head?.position ?? 0,
          hash: head?.hash ?? '',
          algorithm: 'sha256',
        },
      })
    },
  }),
]
