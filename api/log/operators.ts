import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { fail } from '../../domain/shared'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import * as answers from './answers'

/** The operators' routes of the log: the hash chain's check and the keys answer receipts are signed with. */
export const logOperatorRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/admin/verify-chain',
    response: answers.ChainReport,
    tag: 'operators',
    auth: 'admin',
    summary: "Walk the hash chain of the events (one workspace's, or all) and name the first broken event",
    body: c.exact({ workspaceId: c.string(1, 200) }),
    uses: ['store'],
    handler: async ({ body }, { store }) => {
      if (!store.verifyChain) return fail('SERVICE_UNAVAILABLE', 'the event store in use keeps no hash chain')
      return E.right({ data: await store.verifyChain(body.workspaceId) })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/admin/receipt-keys',
    response: answers.ReceiptKeys,
    tag: 'operators',
    auth: 'admin',
    summary: 'The keys answer receipts are signed with: ids and ages, the signing one last (never the secrets)',
    uses: ['receiptKeys'],
    handler: async (_input, { receiptKeys }) => E.right({ data: { keys: await receiptKeys.list() } }),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/receipt-keys',
    response: answers.ReceiptKeyAdded,
    tag: 'operators',
    auth: 'admin',
    summary: 'Rotate: a new key signs from now on; receipts signed by the older keys stay checkable',
    uses: ['receiptKeys'],
    handler: async (_input, { receiptKeys }) => {
      const id = await receiptKeys.rotate()
      return E.right({ data: { id, keys: await receiptKeys.list() }, status: 201 })
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/admin/receipt-keys/:id',
    response: answers.ReceiptKeyRemoved,
    tag: 'operators',
    auth: 'admin',
    summary: 'Remove an older key: the receipts it signed are no longer checkable (the signing key stays)',
    params: t.type({ id: c.string(1, 100) }),
    uses: ['receiptKeys'],
    handler: async ({ params }, { receiptKeys }) => {
      const outcome = await receiptKeys.remove(params.id)
      if (outcome === 'unknown') return fail('NOT_FOUND', `no receipt key ${params.id}`)
      if (outcome === 'signing')
        return fail('CONFLICT', 'the signing key cannot be removed; rotate first', ['id: is the signing key'])
      if (outcome === 'recent')
        return fail(
          'CONFLICT',
          'other processes may still sign with this key for a minute after a rotation; try then',
          ['id: replaced less than a minute ago'],
        )
      return E.right({ data: { removed: true, id: params.id } })
    },
  }),
]
