import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { fail, managesWorkspace } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { pagination } from '../../queries/pagination'
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
    tag: 'audit',
    auth: 'bearer',
    summary: "The workspace's events (owners and admins)",
    query: Query,
    handler: async ({ identity: who, query }, { db }) => {
      const identity = memberOf(who)
      if (!managesWorkspace(identity.role))
        return fail('FORBIDDEN', 'the audit trail is for workspace owners and admins')
      const page = query.page ?? 1
      const limit = query.limit ?? 20
      const where = ['workspace_id = $1']
      const args: unknown[] = [identity.workspaceId]
      const add = (sql: string, value: unknown) => (args.push(value), where.push(sql.replace('?', `$${args.length}`)))
      if (query.streamId) add('stream_id = ?', query.streamId)
      if (query.type) add('type = ?', query.type)
      if (query.actor) add('actor_id = ?', query.actor)
      if (query.after !== undefined) add('position > ?', query.after)
      const order = query.after !== undefined ? 'ASC' : 'DESC'
      const filter = where.join(' AND ')
      const total = (
        await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE ${filter}`, args)
      ).rows[0].n
      const { rows } = await db.pool.query(
        `SELECT position, stream_id, revision, event_id, type, actor, data, metadata, time FROM audit_events
         WHERE ${filter} ORDER BY position ${order} LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
        args,
      )
      const events = rows.map((r) => ({
        position: r.position,
        streamId: r.stream_id,
        revision: r.revision,
        id: r.event_id,
        type: r.type,
        actor: r.actor,
        data: r.data,
        metadata: r.metadata,
        time: r.time.toISOString(),
      }))
      return E.right({ data: { events, pagination: pagination(page, limit, total) } })
    },
  }),
]
