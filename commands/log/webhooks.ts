import { randomBytes, randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import { type DomainError, fail } from '../../domain/shared'
import { type WebhookDeliveryAttempted } from '../../domain/log/webhook'
import { type CommandContext, answered, metadataOf } from '../handle'
import { acceptUrl } from '../urls'
import { webhookDeliveries, webhooks } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/** A signing secret as the Standard Webhooks specification writes them: `whsec_` and base64 of 24 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`

export const registerWebhook = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  input: { url: string; events: string[]; secret?: string },
  allowPrivateUrls: boolean,
): Result<{ id: string; secret: string }> => {
  // The same rules as a URL to ingest: http(s), no credentials, no private address.
  const url = acceptUrl(input.url, allowPrivateUrls)
  if (E.isLeft(url)) return url
  const id = randomUUID()
  const secret = input.secret ?? newWebhookSecret()
  const done = await webhooks
    .on(store, id)
    .handle(
      { type: 'RegisterWebhook', data: { webhookId: id, workspaceId, url: url.right, events: input.events, secret } },
      ctx,
      { fresh: true },
    )
  return answered({ id, secret })(done)
}

/** The webhook's state when it belongs to the workspace (another workspace's is not found). */
const ofWorkspace = async (store: EventStore, workspaceId: string, webhookId: string) => {
  const { state } = await webhooks.on(store, webhookId).load()
  return state.status !== 'none' && state.status !== 'deleted' && state.workspaceId === workspaceId
}

export const deleteWebhook = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  webhookId: string,
): Result<{ id: string }> => {
  if (!(await ofWorkspace(store, workspaceId, webhookId))) return fail('NOT_FOUND', 'webhook not found')
  const done = await webhooks.on(store, webhookId).handle({ type: 'DeleteWebhook', data: { webhookId } }, ctx)
  return answered({ id: webhookId })(done)
}

/** Retries exhausted: the webhook stops receiving until it is registered again. */
export const disableWebhook = (store: EventStore, ctx: CommandContext, webhookId: string, reason: string) =>
  webhooks.on(store, webhookId).handle({ type: 'DisableWebhook', data: { webhookId, reason } }, ctx)

/**
 * Records one try of a delivery. Tries are facts of the sender, decided by nothing but the
 * receiver's answer, so they are appended as they come (one writer: the holder of the delivery lease).
 */
export const recordAttempt = async (
  store: EventStore,
  ctx: CommandContext,
  data: WebhookDeliveryAttempted['data'],
): Promise<number> => {
  const { position } = await store.append(
    webhookDeliveries.stream(data.webhookId),
    [{ id: randomUUID(), type: 'WebhookDeliveryAttempted', data, metadata: metadataOf(ctx) }],
    'any',
  )
  return position
}
