import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { WebhookDeliveryAttempted, WebhookEvent } from '../../domain/log/webhook'
import { webhooksProjector } from '../../projections/log/webhooks'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: webhooks and their deliveries')
const spec = projectorSpec(webhooksProjector)

const registered: WebhookEvent = {
  type: 'WebhookRegistered',
  data: { webhookId: 'h-1', workspaceId: 'ws-1', url: 'https://x.example/kb', events: ['*'], secret: 'whsec_x' },
}
/** A try at delivering the event at `eventPosition` (positions in the spec start at 1, one per event). */
const attempt = (
  eventPosition: number,
  attempt: number,
  delivered: boolean,
  more: Partial<WebhookDeliveryAttempted['data']> = {},
): WebhookDeliveryAttempted => ({
  type: 'WebhookDeliveryAttempted',
  data: {
    webhookId: 'h-1',
    workspaceId: 'ws-1',
    deliveryId: `h-1.${eventPosition}`,
    eventPosition,
    eventType: 'FolderCreated',
    attempt,
    statusCode: delivered ? 200 : 503,
    delivered,
    manual: false,
    ...(delivered ? {} : { error: 'HTTP 503', nextAttemptAt: '2026-01-01T00:05:00.000Z' }),
    ...more,
  },
})
const folder = { type: 'FolderCreated', data: { folderId: 'f-1' } }

test('a webhook starts after its registration; a failed try schedules the next; delivery resets it', () =>
  spec.given([registered, folder, attempt(2, 1, false), attempt(2, 2, true)]).then((rows) => {
    const [hook] = rows.kb_webhooks
    assert.equal([hook.status, Number(hook.cursor), hook.failures, hook.next_attempt_at], ['enabled', 2, 0, null])
    assert.equal(
      rows.kb_webhook_deliveries.map((d) => [Number(d.position), d.attempt, d.delivered]),
      [
        [3, 1, false],
        [4, 2, true],
      ],
    )
  }))

test('a failed manual retry is logged but does not move the schedule', () =>
  spec.given([registered, folder, attempt(2, 1, false), attempt(2, 1, false, { manual: true })]).then((rows) => {
    const [hook] = rows.kb_webhooks
    assert.equal([Number(hook.cursor), hook.failures], [1, 1])
    assert.is(rows.kb_webhook_deliveries.length, 2)
  }))

test('disabled keeps its reason and stops the schedule; deleted takes its deliveries with it', async () => {
  const disabled: WebhookEvent = { type: 'WebhookDisabled', data: { webhookId: 'h-1', reason: 'HTTP 410' } }
  await spec.given([registered, folder, attempt(2, 1, false), disabled]).then((rows) => {
    const [hook] = rows.kb_webhooks
    assert.equal([hook.status, hook.disabled_reason, hook.next_attempt_at], ['disabled', 'HTTP 410', null])
  })
  const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhookId: 'h-1' } }
  await spec.given([registered, folder, attempt(2, 1, false), deleted]).then((rows) => {
    assert.equal(rows, { kb_webhooks: [], kb_webhook_deliveries: [] })
  })
})

test('a try logged for a webhook already deleted writes nothing', () =>
  spec
    .given([registered, { type: 'WebhookDeleted', data: { webhookId: 'h-1' } }, attempt(1, 1, true)])
    .then((rows) => assert.equal(rows, { kb_webhooks: [], kb_webhook_deliveries: [] })))

test.run()
