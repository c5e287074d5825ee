import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { readReceipt } from '../../commands/log/receipts'
import { fail } from '../../domain/shared'
import { staleExposure } from '../../queries/knowledge'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'

const result = {
  type: 'object',
  required: ['version', 'sha256', 'status'],
  properties: {
    entryId: { type: 'string' },
    pageId: { type: 'string' },
    chunkIndex: { type: 'integer' },
    version: { type: 'integer', description: "The entry's revision, or the page's version, that was served" },
    sha256: { type: 'string', description: 'SHA-256 (hex) of the text served' },
    status: { type: 'string', enum: ['current', 'changed', 'deleted'] },
    currentVersion: { type: 'integer', description: 'When changed: the version now' },
    diff: { type: 'string', description: 'When changed: a unified diff of the text served against the text now' },
  },
}

export const receiptRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/receipts/:id',
    tag: 'search',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary:
      'What a search answer served (query, mode, who, when, each result with its version and hash), and whether ' +
      'each result is still current, changed since (with a diff) or deleted',
    // A signed token (up to 50 results: about 3 kB), or a record's id.
    params: t.type({ id: c.string(1, 8000) }),
    response: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        kind: { type: 'string', enum: ['knowledge', 'pages'] },
        query: { type: 'string' },
        mode: { type: 'string' },
        actor: { type: 'object' },
        at: { type: 'string', format: 'date-time' },
        position: { type: 'integer' },
        asOf: { type: 'integer' },
        recorded: {
          type: 'boolean',
          description:
            "Whether the search's record (query, mode, who) has reached the log; a token is checked without it",
        },
        results: { type: 'array', items: result },
      },
    },
    uses: ['db', 'store', 'receiptKeys'],
    handler: async ({ identity, params }, { db, store, receiptKeys }) => {
      const receipt = await readReceipt({ db: db.pool, store, receiptKeys }, memberOf(identity).workspaceId, params.id)
      return receipt ? E.right({ data: receipt }) : fail('NOT_FOUND', 'receipt not found')
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/reports/stale-exposure',
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
