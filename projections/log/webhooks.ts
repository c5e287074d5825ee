import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { WebhookDeliveryAttempted, WebhookEvent } from '../../domain/log/webhook'
import { type Projector, decodeEvent } from '../projector'

const Event = t.union([WebhookEvent, WebhookDeliveryAttempted])

/**
 * Webhooks and their delivery log. A webhook's `cursor` is the position of the last event delivered
 * to it: the next delivery is its first event after the cursor, tried again on the schedule
 * (`failures`, `next_attempt_at`) until it is delivered or the webhook is disabled.
 */
export const webhooksProjector: Projector = {
  name: 'webhooks',
  version: 1,
  tables: ['kb_webhooks', 'kb_webhook_deliveries'],
  schema: `
    CREATE TABLE kb_webhooks (
      id text PRIMARY KEY, workspace_id text NOT NULL, url text NOT NULL, events text[] NOT NULL, secret text NOT NULL,
      status text NOT NULL, disabled_reason text, created_at timestamptz NOT NULL, cursor bigint NOT NULL,
      failures integer NOT NULL DEFAULT 0, next_attempt_at timestamptz);
    CREATE INDEX kb_webhooks_workspace ON kb_webhooks (workspace_id, created_at);
    CREATE TABLE kb_webhook_deliveries (
      position bigint PRIMARY KEY, delivery_id text NOT NULL, webhook_id text NOT NULL, event_position bigint NOT NULL,
      event_type text NOT NULL, attempt integer NOT NULL, status_code integer NOT NULL, delivered boolean NOT NULL,
      manual boolean NOT NULL, error text, next_attempt_at timestamptz, at timestamptz NOT NULL);
    CREATE INDEX kb_webhook_deliveries_webhook ON kb_webhook_deliveries (webhook_id, position DESC);
  `,
  handles: ['WebhookRegistered', 'WebhookDeleted', 'WebhookDisabled', 'WebhookDeliveryAttempted'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    switch (e.type) {
      case 'WebhookRegistered': {
        const d = e.data
        // Delivery starts with the events after its registration.
        await tx.query(
          `INSERT INTO kb_webhooks (id, workspace_id, url, events, secret, status, created_at, cursor)
           VALUES ($1, $2, $3, $4, $5, 'enabled', $6, $7) ON CONFLICT (id) DO NOTHING`,
          [d.webhookId, d.workspaceId, d.url, d.events, d.secret, recorded.metadata.at, recorded.position],
        )
        return
      }
      case 'WebhookDeleted':
        await tx.query('DELETE FROM kb_webhook_deliveries WHERE webhook_id = $1', [e.data.webhookId])
        await tx.query('DELETE FROM kb_webhooks WHERE id = $1', [e.data.webhookId])
        return
      case 'WebhookDisabled':
        await tx.query(
          "UPDATE kb_webhooks SET status = 'disabled', disabled_reason = $2, next_attempt_at = NULL WHERE id = $1",
          [e.data.webhookId, e.data.reason],
        )
        return
      case 'WebhookDeliveryAttempted': {
        const d = e.data
        const { rowCount } = await tx.query(
          `INSERT INTO kb_webhook_deliveries (position, delivery_id, webhook_id, event_position, event_type, attempt,
             status_code, delivered, manual, error, next_attempt_at, at)
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12
           WHERE EXISTS (SELECT 1 FROM kb_webhooks WHERE id = $3)
           ON CONFLICT (position) DO NOTHING`,
          [
            recorded.position,
            d.deliveryId,
            d.webhookId,
            d.eventPosition,
            d.eventType,
            d.attempt,
            d.statusCode,
            d.delivered,
            d.manual,
            d.error ?? null,
            d.nextAttemptAt ?? null,
            recorded.metadata.at,
          ],
        )
        if (!rowCount) return
        // Delivered: the cursor moves past it and the schedule starts over. A failed automatic try
        // sets the next one; a failed manual retry changes nothing.
        if (d.delivered)
          await tx.query(
            `UPDATE kb_webhooks SET cursor = $2, failures = 0, next_attempt_at = NULL WHERE id = $1 AND cursor < $2`,
            [d.webhookId, d.eventPosition],
          )
        else if (!d.manual)
          await tx.query('UPDATE kb_webhooks SET failures = $3, next_attempt_at = $4 WHERE id = $1 AND cursor < $2', [
            d.webhookId,
            d.eventPosition,
            d.attempt,
            d.nextAttemptAt ?? null,
          ])
        return
      }
    }
  },
}
