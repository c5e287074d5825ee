import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { Webhook } from 'standardwebhooks'
import { alarm } from '../../adapters/alarm'
import type { Database } from '../../adapters/db'
import type { EventStore } from '../../adapters/eventstore/port'
import { FetchError, safePost } from '../../adapters/fetcher'
import type { Logger } from '../../adapters/logger'
import type { CommandContext } from '../../commands/handle'
import { disableWebhook, recordAttempt } from '../../commands/log/webhooks'
import type { ProjectionRunner } from '../../projections/runner'
import type { AuditEvent } from '../../queries/log/audit'
import { type DueWebhook, dueWebhooks, nextEventFor } from '../../queries/log/webhooks'

const PROCESS = 'webhooks'
/** How long a receiver has to answer one delivery. */
const DELIVERY_TIMEOUT_MS = 15_000
/** How often due webhooks are looked for when no new event woke the loop. */
const TICK_MS = 500

export interface DeliveryDeps {
  db: Database
  store: EventStore
  runner: ProjectionRunner
  log: Logger
  allowPrivateUrls: boolean
  /** Delays before each retry of a failed delivery (WEBHOOK_RETRY_SCHEDULE); exhausted, the webhook is disabled. */
  schedule: number[]
}

const system = (): CommandContext => ({
  actor: { kind: 'system', process: PROCESS },
  at: new Date().toISOString(),
  correlationId: randomUUID(),
})

/** What a receiver gets: the event as the audit trail shows it, under the specification's type/timestamp/data. */
export const payloadOf = (event: AuditEvent) => JSON.stringify({ type: event.type, timestamp: event.time, data: event })

/**
 * Sends one event to a webhook, signed as the Standard Webhooks specification says (`webhook-id`
 * the same for every try of the event), and records the try. A failed automatic try is followed
 * by the next on the schedule; after the last one the webhook is disabled.
 */
export const deliver = async (
  deps: Pick<DeliveryDeps, 'store' | 'allowPrivateUrls' | 'schedule'>,
  hook: Pick<DueWebhook, 'id' | 'workspaceId' | 'url' | 'secret'>,
  event: AuditEvent,
  attempt: number,
  manual: boolean,
) => {
  const deliveryId = `${hook.id}.${event.position}`
  const payload = payloadOf(event)
  const now = new Date()
  let statusCode = 0
  let error: string | undefined
  try {
    statusCode = await safePost(
      hook.url,
      payload,
      {
        'content-type': 'application/json',
        'webhook-id': deliveryId,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(hook.secret).sign(deliveryId, now, payload),
      },
      { timeoutMs: DELIVERY_TIMEOUT_MS, allowPrivate: deps.allowPrivateUrls },
    )
  } catch (e) {
    if (!(e instanceof FetchError)) throw e
    error = e.message
  }
  const delivered = statusCode >= 200 && statusCode < 300
  if (!delivered && !error) error = `the receiver answered HTTP ${statusCode}`
  const exhausted = !manual && !delivered && attempt > deps.schedule.length
  const nextAttemptAt =
    manual || delivered || exhausted ? undefined : new Date(Date.now() + deps.schedule[attempt - 1]).toISOString()
  const ctx = system()
  let position = await recordAttempt(deps.store, ctx, {
    webhookId: hook.id,
    workspaceId: hook.workspaceId,
    deliveryId,
    eventPosition: event.position,
    eventType: event.type,
    attempt,
    statusCode,
    delivered,
    manual,
    ...(error ? { error } : {}),
    ...(nextAttemptAt ? { nextAttemptAt } : {}),
  })
  if (exhausted) {
    const reason = `disabled after ${attempt} failed tries of delivery ${deliveryId}: ${error}`
    const done = await disableWebhook(deps.store, { ...ctx, workspaceId: hook.workspaceId }, hook.id, reason)
    if (E.isRight(done)) position = Math.max(position, done.right.position)
  }
  return { deliveryId, attempt, statusCode, delivered, ...(error ? { error } : {}), position }
}

/**
 * The delivery loop (one process of the cluster runs it, the holder of the webhooks lease): each
 * enabled webhook gets its events one at a time, in log order; the next is sent only once the one
 * before was delivered. Nothing but the read models says where a webhook stands, so a process that
 * dies mid-delivery leaves the event undelivered, and whoever runs the loop next sends it again
 * (with the same `webhook-id`): at least once, never skipped.
 */
export const startWebhookDelivery = (deps: DeliveryDeps) => {
  let stopped = false
  const written = alarm()
  const inFlight = new Map<string, Promise<void>>()
  const off = deps.runner.onWritten('audit', written.wake)
  const deliverNext = async (hook: DueWebhook) => {
    const event = await nextEventFor(deps.db.pool, hook, hook.cursor)
    if (!event || stopped) return
    const done = await deliver(deps, hook, event, hook.failures + 1, false)
    // The next decision is made on read models that hold this try (the webhook stays in flight till then).
    while (!stopped && !(await deps.runner.waitFor(done.position, 10_000))) {}
  }
  const loop = (async () => {
    while (!stopped) {
      const waiting = written.arm(TICK_MS)
      try {
        for (const hook of await dueWebhooks(deps.db.pool, new Date())) {
          if (inFlight.has(hook.id) || stopped) continue
          const running = deliverNext(hook)
            .catch((error: Error) => deps.log.error({ err: error, webhook: hook.id }, 'webhook delivery failed'))
            .finally(() => inFlight.delete(hook.id))
          inFlight.set(hook.id, running)
        }
      } catch (error) {
        if (!stopped) deps.log.error({ err: error }, 'cannot read the due webhooks')
      }
      await waiting
    }
  })()
  return async () => {
    stopped = true
    written.wake()
    off()
    await loop
    await Promise.all(inFlight.values())
  }
}
