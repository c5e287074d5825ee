import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { readReceipt } from '../../commands/search/receipts'
import { fail } from '../../domain/shared'
import { staleExposure } from '../../queries/knowledge'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { ReceiptRecord, StaleExposure } from './answers'

export const receiptRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/receipts/:id',
    response: ReceiptRecord,
    tag: 'search',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary:
      'What a search answer served (query, mode, who, when, each result with its version and hash), and whether ' +
      'each result is still current, changed since (with a diff) or deleted',
    // A signed token (up to 50 results: about 3 kB), or a record's id.
    params: t.type({ id: c.string(1, 8000) }),
    uses: ['db', 'store', 'receiptKeys'],
    handler: async ({ identity, params }, { db, store, receiptKeys }) => {
      const receipt = await readReceipt({ db: db.pool, store, receiptKeys }, memberOf(identity).workspaceId, params.id)
      return receipt ? E.right({ data: receipt }) : fail('NOT_FOUND', 'receipt not found')
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/reports/stale-exposure',
    response: StaleExposure,
    tag: 'search',
    auth: 'bearer',
    summary:
      'Each entry or page served since a time whose served text has changed or been deleted since: who was served ' +
      'it, when, by which receipt, and what changed; newest change first (owners and admins)',
    managers: 'the stale-exposure report is for owners and admins',
    query: t.intersection([
      t.type({ since: c.isoTime }),
      t.partial({ page: c.intFromString(1, 1_000_000), limit: c.intFromString(1, 100) }),
    ]),
    uses: ['db'],
    handler: async ({ identity, query }, { db }) => {
      const member = memberOf(identity)
      return E.right({
        data: await staleExposure(db.pool, member.workspaceId, query.since, query.page ?? 1, query.limit ?? 20),
      })
    },
  }),
]
