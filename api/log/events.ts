import { Readable } from 'node:stream'
import { alarm } from '../../adapters/alarm'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { fail, managesWorkspace } from '../../domain/shared'
import { type AuditEvent, type AuditFilters, auditEventsAfter, auditHead } from '../../queries/log/audit'
import { memberOf } from '../auth'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { type AnyRoute, route } from '../route'

/** A log position, or `now`: the workspace's last event when the stream opens. */
const After = c.documented(
  t.union([c.intFromString(0, Number.MAX_SAFE_INTEGER), t.literal('now')], 'a log position or "now"'),
  {
    anyOf: [
      { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER },
      { type: 'string', enum: ['now'] },
    ],
  },
)

const Query = t.partial({
  after: After,
  type: c.string(1, 200),
  streamId: c.string(1, 300),
})

/** Events read at a time; a client far behind catches up in pages of this many. */
const PAGE = 200
/** How often the stream looks for new events when no projection notice woke it (another process wrote). */
const POLL_MS = 1000
/**
 * A stream ends after this long; the client reconnects with Last-Event-ID (EventSource does so by
 * itself), and its credentials are checked again: a revoked token stops receiving within it.
 */
const MAX_STREAM_MS = 10 * 60 * 1000

/**
 * An event as a member who does not manage the workspace sees it: an agent author's API key id,
 * which the page and proposal reads never show, is left out wherever an author appears.
 */
const withoutKeyIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutKeyIds)
  if (!value || typeof value !== 'object') return value
  const shown = Object.entries(value).filter(
    ([k]) => !(k === 'keyId' && (value as { kind?: unknown }).kind === 'agent'),
  )
  return Object.fromEntries(shown.map(([k, v]) => [k, withoutKeyIds(v)]))
}

/**
 * Server-Sent Events of the workspace's audit trail after `after`: each event as `id: <position>`,
 * `event: <type>`, `data: <the audit endpoint's JSON>`, then live as the audit projection writes; a
 * comment line as a heartbeat after `heartbeatMs` of silence. Ends when the service stops.
 */
const eventStream = (
  { db, runner, state, config }: Pick<Deps, 'db' | 'runner' | 'state' | 'config'>,
  workspaceId: string,
  filters: AuditFilters,
  shown: (event: AuditEvent) => unknown = (event) => event,
) =>
  Readable.from(
    (async function* () {
      let after = filters.after ?? 0
      const written = alarm()
      const off = runner.onWritten('audit', written.wake)
      let silentSince = Date.now()
      const ends = Date.now() + MAX_STREAM_MS
      try {
        // Clients reconnect after this long (the browser's EventSource reads it), sending Last-Event-ID.
        yield 'retry: 2000\n\n'
        while (state.ready && Date.now() < ends) {
          const waiting = written.arm(POLL_MS)
          const events = await auditEventsAfter(db.pool, workspaceId, { ...filters, after }, PAGE)
          for (const e of events) {
            yield `id: ${e.position}\nevent: ${e.type}\ndata: ${JSON.stringify(shown(e))}\n\n`
            after = e.position
            silentSince = Date.now()
          }
          if (events.length === PAGE) continue
          if (Date.now() - silentSince >= config.eventsHeartbeatMs) {
            yield `: heartbeat ${new Date().toISOString()}\n\n`
            silentSince = Date.now()
          }
          await waiting
        }
      } finally {
        off()
      }
    })(),
    { objectMode: false },
  )

export const eventRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/events/stream',
    tag: 'audit',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary:
      "Server-Sent Events of the workspace's events: all of them for owners and admins; for other members, " +
      'those of entries, folders, tasks, the configuration, pages, collections and proposals. Resumable with ' +
      'Last-Event-ID or `after=<position>`, filtered by `type` and `streamId`, with a heartbeat',
    query: Query,
    produces: {
      type: 'text/event-stream',
      description:
        'Each event as `id: <position>`, `event: <type>`, `data: <the event as GET /api/v1/audit/events shows it>`; ' +
        'a comment line (`: heartbeat`) after a silence',
    },
    uses: ['db', 'runner', 'state', 'config', 'streams'],
    handler: async ({ identity: who, query, header }, deps) => {
      const identity = memberOf(who)
      // A reconnecting client's Last-Event-ID is the position it saw last; `after` names one explicitly.
      const last = header('last-event-id')
      if (last !== undefined && !/^\d{1,15}$/.test(last))
        return fail('VALIDATION_ERROR', 'the request is not valid', [
          'Last-Event-ID: must be the id (a log position) of an event this stream sent',
        ])
      // A browser reconnects to the same URL (with its after=) and sends the last id it saw: the later
      // wins, and it always wins over `now`, which would skip what was written while it was away.
      const asked =
        query.after === 'now'
          ? last === undefined
            ? await auditHead(deps.db.pool, identity.workspaceId)
            : 0
          : (query.after ?? 0)
      const after = Math.max(asked, last !== undefined ? Number(last) : 0)
      // A member who does not manage the workspace follows what it may read through the API anyway,
      // as the API shows it.
      const manages = managesWorkspace(identity.role)
      const filters = {
        after,
        type: query.type,
        streamId: query.streamId,
        categories: manages ? undefined : deps.streams.members,
      }
      return E.right({
        stream: eventStream(deps, identity.workspaceId, filters, manages ? undefined : withoutKeyIds),
        headers: { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
      })
    },
  }),
]
