import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as collections from '../../commands/pages/collections'
import { loadKbConfig } from '../../commands/knowledge'
import { WritePolicy } from '../../domain/pages/collection'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import type { Database } from '../../adapters/db'
import { type AnyRoute, readBack, route } from '../route'
import { getCollection, listCollections } from '../../queries/pages/pages'
import * as answers from './answers'

const IdParam = t.type({ id: c.id })
const Fields = { description: c.string(0, 500), writePolicy: WritePolicy }

const collectionReply = (db: Database, workspaceId: string, id: string, position: number, status = 200) =>
  readBack(position, async () => (await getCollection(db.pool, workspaceId, id)) ?? { id }, status)

/** Collections (with their write policy), and their publishing as public packs. */
export const collectionRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/collections',
    response: answers.WrittenCollection,
    tag: 'collections',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Create a collection',
    body: c.object({ name: c.line(1, 100) }, Fields),
    uses: ['db', 'store'],
    handler: async ({ body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const created = await collections.createCollection(deps.store, command, workspaceId, body)
      if (E.isLeft(created)) return created
      return collectionReply(deps.db, workspaceId, created.right.id, created.right.position, 201)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/collections',
    response: answers.CollectionList,
    tag: 'collections',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "The workspace's collections, oldest first",
    uses: ['db'],
    handler: async ({ identity }, { db }) =>
      E.right({ data: { collections: await listCollections(db.pool, memberOf(identity).workspaceId) } }),
  }),
  route({
    method: 'get',
    path: '/api/v1/collections/:id',
    response: answers.Collection,
    tag: 'collections',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Get a collection',
    params: IdParam,
    uses: ['db'],
    handler: async ({ params, identity }, { db }) => {
      const found = await getCollection(db.pool, memberOf(identity).workspaceId, params.id)
      return found ? E.right({ data: found }) : collections.collectionNotFound('id')
    },
  }),
  route({
    method: 'patch',
    path: '/api/v1/collections/:id',
    response: answers.WrittenCollection,
    tag: 'collections',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Rename a collection or change its write policy',
    params: IdParam,
    body: c.exact({ name: c.line(1, 100), ...Fields }),
    uses: ['db', 'store'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const updated = await collections.updateCollection(deps.store, command, workspaceId, params.id, body)
      if (E.isLeft(updated)) return updated
      return collectionReply(deps.db, workspaceId, params.id, updated.right.position)
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/collections/:id',
    response: answers.Deleted,
    tag: 'collections',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Delete a collection; its pages stay, outside any collection, and its pack goes offline',
    params: IdParam,
    uses: ['db', 'store'],
    handler: async ({ params, identity, command }, deps) => {
      const deleted = await collections.deleteCollection(
        deps.store,
        deps.db.pool,
        command,
        memberOf(identity).workspaceId,
        params.id,
      )
      return E.map(({ position, ...data }: { position: number }) => ({ data, position }))(deleted)
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/packs',
    response: answers.Pack,
    tag: 'packs',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: "Publish a collection's verified pages as a public pack (verification must be on)",
    body: c.object({ collectionId: c.id, slug: c.slug }, {}),
    uses: ['config', 'store'],
    handler: async ({ body, identity, command, origin }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const base = deps.config.publicUrl ?? origin
      if (!(await loadKbConfig(deps.store, workspaceId)).verification.enabled) {
        return fail('VALIDATION_ERROR', 'public packs serve verified pages: turn verification on first', [
          'verification.enabled: is false',
        ])
      }
      const published = await collections.publishPack(deps.store, command, workspaceId, body.collectionId, body.slug)
      return E.map(({ position, slug }: { position: number; slug: string }) => ({
        data: { slug, url: `${base}/packs/${slug}`, mcpUrl: `${base}/packs/${slug}/mcp` },
        position,
        status: 201,
      }))(published)
    },
  }),
]
