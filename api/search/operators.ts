import * as E from 'fp-ts/Either'
import { reembedAll } from '../../commands/search'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import * as answers from './answers'

/** The operators' route of search: re-embedding with the configured model. */
export const searchOperatorRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/admin/reembed',
    response: answers.Reembedded,
    tag: 'operators',
    auth: 'admin',
    summary:
      'Re-embed chunks with the configured model (one workspace, or all): new vectors built beside the old, then ' +
      'swapped in',
    body: c.exact({ workspaceId: c.id }),
    uses: ['db', 'store', 'embedder'],
    handler: async ({ body }, { store, db, embedder }) => {
      const done = await reembedAll(store, db.pool, embedder, body.workspaceId)
      if (E.isLeft(done)) return done
      const reports = done.right
      return E.right({
        data: { reembedded: reports.map(({ position: _, ...r }) => r) },
        position: Math.max(0, ...reports.map((r) => r.position)),
      })
    },
  }),
]
