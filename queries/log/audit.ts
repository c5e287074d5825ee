import type { Queryable } from '../../adapters/db'
import { pagination } from '../pagination'

export interface AuditFilters {
  streamId?: string
  type?: string
  /** Any of these types. */
  types?: string[]
  /** Only streams of these categories (the part of a stream's name before its first '-'). */
  categories?: string[]
  /** A user id, an agent client or a process. */
  actor?: string
  /** Forwards from a position (oldest first) instead of newest first. */
  after?: number
}

interface AuditRow {
  position: number
  stream_id: string
  revision: number
  event_id: string
  type: string
  actor: unknown
  data: unknown
  metadata: unknown
  time: Date
}

/** The conditions of a workspace's rows passing the filters, with their arguments. */
const filtered = (workspaceId: string, f: AuditFilters) => {
  const where = ['workspace_id = $1']
  const args: unknown[] = [workspaceId]
  const add = (sql: string, value: unknown) => (args.push(value), where.push(sql.replace('?', `$${args.length}`)))
  if (f.streamId) add('stream_id = ?', f.streamId)
  if (f.type) add('type = ?', f.type)
  if (f.types) add('type = ANY(?::text[])', f.types)
  if (f.categories) add("split_part(stream_id, '-', 1) = ANY(?::text[])", f.categories)
  if (f.actor) add('actor_id = ?', f.actor)
  if (f.after !== undefined) add('position > ?', f.after)
  return { filter: where.join(' AND '), args }
}

const COLUMNS = 'position, stream_id, revision, event_id, type, actor, data, metadata, time'

const toEvent = (r: AuditRow) => ({
  position: r.position,
  streamId: r.stream_id,
  revision: r.revision,
  id: r.event_id,
  type: r.type,
  actor: r.actor,
  data: r.data,
  metadata: r.metadata,
  time: r.time.toISOString(),
})

export type AuditEvent = ReturnType<typeof toEvent>

/** A workspace's audit trail: newest first, or forwards from `after`; filtered and paginated. */
export const auditEvents = async (db: Queryable, workspaceId: string, f: AuditFilters, page: number, limit: number) => {
  const { filter, args } = filtered(workspaceId, f)
  const order = f.after !== undefined ? 'ASC' : 'DESC'
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM audit_events WHERE ${filter}`, args))
    .rows[0].n
  const { rows } = await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_events
     WHERE ${filter} ORDER BY position ${order} LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    args,
  )
  return { events: rows.map(toEvent), pagination: pagination(page, limit, total) }
}

/** The next of a workspace's events after a position (`f.after`), oldest first, with no count of the rest. */
export const auditEventsAfter = async (db: Queryable, workspaceId: string, f: AuditFilters, limit: number) => {
  const { filter, args } = filtered(workspaceId, { ...f, after: f.after ?? 0 })
  const { rows } = await db.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_events WHERE ${filter} ORDER BY position LIMIT ${limit}`,
    args,
  )
  return rows.map(toEvent)
}

/** The position of a workspace's last event (0 when it has none). */
export const auditHead = async (db: Queryable, workspaceId: string) =>
  (
    await db.query<{ position: number | null }>(
      'SELECT max(position)::bigint AS position FROM audit_events WHERE workspace_id = $1',
      [workspaceId],
    )
  ).rows[0].position ?? 0
