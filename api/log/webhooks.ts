import * as E from 'fp-ts/Either'
import * as answers from './answers'
import * as t from 'io-ts'
import { deleteWebhook, registerWebhook } from '../../commands/log/webhooks'
import { fail } from '../../domain/shared'
import { deliveryToRetry, getWebhook, listWebhooks, webhookDeliveries } from '../../queries/log/webhooks'
import { deliver } from '../../workers/log/webhooks'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, readBack, route } from '../route'

const IdParam = t.type({ id: c.id })

/** Webhooks are for the workspace's owners and admins: they carry its whole event trail out. */
const MANAGERS = 'webhooks are for workspace owners and admins'

export const webhookRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/webhooks',
    response: answers.RegisteredWebhook,
    tag: 'webhooks',
    auth: 'bearer',
    managers: MANAGERS,
    summary:
      "Register a webhook: the workspace's events of the given types (or * for all), signed as the Standard Webhooks " +
      'specification says, at least once and in order; the secret is answered once',
    body: c.object({ url: c.string(1, 2048), events: c.arrayOf(c.eventType, 50) }, { secret: c.webhookSecret }),
    uses: ['db', 'store', 'config'],
    handler: async ({ identity, body, command }, { db, store, config }) => {
      const workspaceId = memberOf(identity).workspaceId
      if (body.events.length === 0)
        return fail('VALIDATION_ERROR', 'the request is not valid', ['events: name at least one event type, or *'])
      const done = await registerWebhook(store, command, workspaceId, body, config.allowPrivateUrls)
      if (E.isLeft(done)) return done
      const { id, secret, position } = done.right
      return readBack(
        position,
        async () => ({ ...((await getWebhook(db.pool, workspaceId, id)) ?? { id }), secret }),
        201,
      )
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/webhooks',
    response: answers.WebhookList,
    tag: 'webhooks',
    auth: 'bearer',
    managers: MANAGERS,
    summary: "The workspace's webhooks (never their secrets)",
    uses: ['db'],
    handler: async ({ identity }, { db }) => {
      const workspaceId = memberOf(identity).workspaceId
      return E.right({ data: { webhooks: await listWebhooks(db.pool, workspaceId) } })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/webhooks/:id',
    response: answers.Webhook,
    tag: 'webhooks',
    auth: 'bearer',
    managers: MANAGERS,
    summary: 'One webhook',
    params: IdParam,
    uses: ['db'],
    handler: async ({ identity, params }, { db }) => {
      const workspaceId = memberOf(identity).workspaceId
      const hook = await getWebhook(db.pool, workspaceId, params.id)
      return hook ? E.right({ data: hook }) : fail('NOT_FOUND', 'webhook not found')
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/webhooks/:id',
    response: answers.WebhookDeleted,
    tag: 'webhooks',
    auth: 'bearer',
    managers: MANAGERS,
    summary: 'Delete a webhook: nothing more is sent to it',
    params: IdParam,
    uses: ['store'],
    handler: async ({ identity, params, command }, { store }) => {
      const workspaceId = memberOf(identity).workspaceId
      const done = await deleteWebhook(store, command, workspaceId, params.id)
      return E.map(({ id, position }: { id: string; position: number }) => ({ data: { id, deleted: true }, position }))(
        done,
      )
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/webhooks/:id/deliveries',
    response: answers.Deliveries,
    tag: 'webhooks',
    auth: 'bearer',
    managers: MANAGERS,
    summary: "The webhook's delivery log, newest try first: each try's event, attempt, status code and error",
    params: IdParam,
    query: t.partial({ page: c.intFromString(1, 1_000_000), limit: c.intFromString(1, 100) }),
    uses: ['db'],
    handler: async ({ identity, params, query }, { db }) => {
      const workspaceId = memberOf(identity).workspaceId
      if (!(await getWebhook(db.pool, workspaceId, params.id))) return fail('NOT_FOUND', 'webhook not found')
      return E.right({ data: await webhookDeliveries(db.pool, params.id, query.page ?? 1, query.limit ?? 20) })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/webhooks/:id/deliveries/:deliveryId/retry',
    response: answers.Retried,
    tag: 'webhooks',
    auth: 'bearer',
    managers: MANAGERS,
    summary: 'Send a delivery again now (with the same webhook-id); answers how the try went',
    params: t.type({ id: c.id, deliveryId: c.string(1, 300) }),
    uses: ['db', 'store', 'config'],
    handler: async ({ identity, params }, { db, store, config }) => {
      const workspaceId = memberOf(identity).workspaceId
      const found = await deliveryToRetry(db.pool, workspaceId, params.id, params.deliveryId)
      if (!found) return fail('NOT_FOUND', 'delivery not found')
      const { hook, event, attempts } = found
      const done = await deliver(
        { store, allowPrivateUrls: config.allowPrivateUrls, schedule: [] },
        hook,
        event,
        attempts + 1,
        true,
      )
      const { position, ...result } = done
      return E.right({ data: result, position })
    },
  }),
]
