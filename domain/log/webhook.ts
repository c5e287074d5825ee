import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { type Decider, assertNever, fail } from '../shared'

export const WebhookRegistered = t.type({
  type: t.literal('WebhookRegistered'),
  data: t.type({
    webhookId: t.string,
    workspaceId: t.string,
    url: t.string,
    /** Event types delivered, or ['*'] for all. */
    events: t.array(t.string),
    /** The signing secret (`whsec_…`): kept, since every delivery is signed with it; never shown again. */
    secret: t.string,
  }),
})
export type WebhookRegistered = t.TypeOf<typeof WebhookRegistered>
export const WebhookDeleted = t.type({ type: t.literal('WebhookDeleted'), data: t.type({ webhookId: t.string }) })
export const WebhookDisabled = t.type({
  type: t.literal('WebhookDisabled'),
  data: t.type({ webhookId: t.string, reason: t.string }),
})
export const WebhookEvent = t.union([WebhookRegistered, WebhookDeleted, WebhookDisabled])
export type WebhookEvent = t.TypeOf<typeof WebhookEvent>

/** One try at delivering one event to a webhook (its own stream: webhookdeliveries-<id>). */
export const WebhookDeliveryAttempted = t.type({
  type: t.literal('WebhookDeliveryAttempted'),
  data: t.intersection([
    t.type({
      webhookId: t.string,
      workspaceId: t.string,
      /** The same for every try of one event (the `webhook-id` header): `<webhookId>.<position>`. */
      deliveryId: t.string,
      eventPosition: t.number,
      eventType: t.string,
      attempt: t.number,
      /** The receiver's HTTP status, 0 when none came (refused, timed out). */
      statusCode: t.number,
      delivered: t.boolean,
      /** A retry asked for by a person: it does not move the schedule of automatic tries. */
      manual: t.boolean,
    }),
    t.partial({ error: t.string, nextAttemptAt: t.string }),
  ]),
})
export type WebhookDeliveryAttempted = t.TypeOf<typeof WebhookDeliveryAttempted>

export type WebhookCommand =
  | { type: 'RegisterWebhook'; data: t.TypeOf<typeof WebhookRegistered>['data'] }
  | { type: 'DeleteWebhook'; data: { webhookId: string } }
  | { type: 'DisableWebhook'; data: { webhookId: string; reason: string } }

export type WebhookState = { status: 'none' } | { status: 'enabled' | 'disabled' | 'deleted'; workspaceId: string }

export const webhook: Decider<WebhookCommand, WebhookEvent, WebhookState> = {
  events: WebhookEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'WebhookRegistered':
        return { status: 'enabled', workspaceId: event.data.workspaceId }
      case 'WebhookDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' }
      case 'WebhookDisabled':
        return state.status === 'enabled' ? { ...state, status: 'disabled' } : state
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    switch (command.type) {
      case 'RegisterWebhook':
        if (state.status !== 'none') return fail('CONFLICT', 'the webhook already exists')
        return E.right([{ type: 'WebhookRegistered', data: command.data }])
      case 'DeleteWebhook':
        if (state.status === 'none' || state.status === 'deleted') return fail('NOT_FOUND', 'webhook not found')
        return E.right([{ type: 'WebhookDeleted', data: command.data }])
      case 'DisableWebhook':
        if (state.status === 'none' || state.status === 'deleted') return fail('NOT_FOUND', 'webhook not found')
        return E.right(state.status === 'disabled' ? [] : [{ type: 'WebhookDisabled', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
