import type { Queryable } from '../../adapters/db'
import { auditEventsAfter } from './audit'
import { pagination } from '../pagination'

interface WebhookRow {
  id: string
  workspace_id: string
  url: string
  events: string[]
  secret: string
  status: string
  disabled_reason: string | null
  created_at: Date
  cursor: number
  failures: number
  next_attempt_at: Date | null
}

/** A webhook as the API shows it: never its secret. */
const shown = (r: WebhookRow) => ({
  id: r.id,
  url: r.url,
  events: r.events,
  status: r.status,
  ...(r.disabled_reason ? { disabledReason: r.disabled_reason } : {}),
  createdAt: r.created_at.toISOString(),
  deliveredUpTo: r.cursor,
  failures: r.failures,
  nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
})

export const listWebhooks = async (db: Queryable, workspaceId: string) => {
  const { rows } = await db.query<WebhookRow>(
    'SELECT * FROM kb_webhooks WHERE workspace_id = $1 ORDER BY created_at, id',
    [workspaceId],
  )
  return rows.map(shown)
}

export const getWebhook = async (db: Queryable, workspaceId: string, id: string) => {
  const { rows } = await db.query<WebhookRow>('SELECT * FROM kb_webhooks WHERE id = $1 AND workspace_id = $2', [
    id,
    workspaceId,
  ])
  return rows[0] && shown(rows[0])
}

export interface DueWebhook {
  id: string
  workspaceId: string
  url: string
  events: string[]
  secret: string
  cursor: number
  failures: number
}

/** Enabled webhooks whose next try is due (or that have none waiting). */
export const dueWebhooks = async (db: Queryable, now: Date): Promise<DueWebhook[]> => {
  const { rows } = await db.query<WebhookRow>(
    "SELECT * FROM kb_webhooks WHERE status = 'enabled' AND (next_attempt_at IS NULL OR next_attempt_at <= $1)",
    [now],
  )
  return rows.map((r) => ({
    id: r.id,
    workspaceId: r.workspace_id,
    url: r.url,
    events: r.events,
    secret: r.secret,
    cursor: r.cursor,
    failures: r.failures,
  }))
}

/** The first event after a position that the webhook's event types take. */
export const nextEventFor = async (db: Queryable, hook: Pick<DueWebhook, 'workspaceId' | 'events'>, after: number) => {
  const types = hook.events.includes('*') ? undefined : hook.events
  const [event] = await auditEventsAfter(db, hook.workspaceId, { after, types }, 1)
  return event
}

/** A delivery of the log, to send again: its webhook, its event and how many tries it had. */
export const deliveryToRetry = async (db: Queryable, workspaceId: string, webhookId: string, deliveryId: string) => {
  const { rows } = await db.query<{ event_position: number; attempts: number; secret: string; url: string }>(
    `SELECT d.event_position, max(d.attempt)::int AS attempts, w.secret, w.url FROM kb_webhook_deliveries d
     JOIN kb_webhooks w ON w.id = d.webhook_id
     WHERE d.webhook_id = $1 AND d.delivery_id = $2 AND w.workspace_id = $3
     GROUP BY d.event_position, w.secret, w.url`,
    [webhookId, deliveryId, workspaceId],
  )
  const found = rows[0]
  if (!found) return undefined
  const [event] = await auditEventsAfter(db, workspaceId, { after: found.event_position - 1 }, 1)
  if (event?.position !== found.event_position) return undefined
  return { hook: { id: webhookId, workspaceId, url: found.url, secret: found.secret }, event, attempts: found.attempts }
}

interface DeliveryRow {
  position: number
  delivery_id: string
  event_position: number
  event_type: string
  attempt: number
  status_code: number
  delivered: boolean
  manual: boolean
  error: string | null
  next_attempt_at: Date | null
  at: Date
}

/** A webhook's tries, newest first, paginated. */
export const webhookDeliveries = async (db: Queryable, webhookId: string, page: number, limit: number) => {
  const total = (
    await db.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_webhook_deliveries WHERE webhook_id = $1', [
      webhookId,
    ])
  ).rows[0].n
  const { rows } = await db.query<DeliveryRow>(
    `SELECT * FROM kb_webhook_deliveries WHERE webhook_id = $1 ORDER BY position DESC LIMIT ${limit}
     OFFSET ${(page - 1) * limit}`,
    [webhookId],
  )
  const deliveries = rows.map((r) => ({
    deliveryId: r.delivery_id,
    eventPosition: r.event_position,
    eventType: r.event_type,
    attempt: r.attempt,
    statusCode: r.status_code,
    delivered: r.delivered,
    manual: r.manual,
    ...(r.error ? { error: r.error } : {}),
    nextAttemptAt: r.next_attempt_at?.toISOString() ?? null,
    at: r.at.toISOString(),
  }))
  return { deliveries, pagination: pagination(page, limit, total) }
}
