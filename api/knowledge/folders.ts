import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as folders from '../../commands/knowledge/folders'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import type { Database } from '../../adapters/db'
import { type AnyRoute, readBack, route } from '../route'
import { getFolder, listFolders } from '../../queries/knowledge/folders'
import * as answers from './answers'

const Fields = { description: c.string(0, 500), color: c.hexColor, icon: c.iconName }
const IdParam = t.type({ folderId: c.id })
/** How long a folder's deletion waits for the read models before sweeping its entries to root. */
const FOLDER_SWEEP_WAIT_MS = 30_000

const folderReply = (db: Database, workspaceId: string, id: string, position: number, status = 200) =>
  readBack(position, async () => (await getFolder(db.pool, workspaceId, id)) ?? { id }, status)

/** Folders: names unique per workspace (case-insensitive), at most 100 characters. */
export const folderRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/knowledge/folders',
    response: answers.WrittenFolder,
    tag: 'folders',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Create a folder',
    // parentId is read only to refuse it: a folder asked for inside another must not silently land at the top.
    body: c.object({ name: c.line(1, 100) }, { ...Fields, parentId: t.unknown }),
    uses: ['db', 'store'],
    handler: async ({ body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const { name, parentId, ...fields } = body
      if (parentId !== undefined && parentId !== null) {
        return fail('VALIDATION_ERROR', 'folders do not nest', [
          'parentId: folders do not nest; leave it out to create a top-level folder',
        ])
      }
      const created = await folders.createFolder(deps.store, command, workspaceId, name, fields)
      if (E.isLeft(created)) return created
      return folderReply(deps.db, workspaceId, created.right.id, created.right.position, 201)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/folders',
    response: answers.FolderList,
    tag: 'folders',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "The workspace's folders, oldest first",
    uses: ['db'],
    handler: async ({ identity }, { db }) =>
      E.right({ data: { folders: await listFolders(db.pool, memberOf(identity).workspaceId) } }),
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/folders/:folderId',
    response: answers.Folder,
    tag: 'folders',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Get a folder',
    params: IdParam,
    uses: ['db'],
    handler: async ({ params, identity }, { db }) => {
      const found = await getFolder(db.pool, memberOf(identity).workspaceId, params.folderId)
      return found ? E.right({ data: found }) : fail('NOT_FOUND', 'folder not found')
    },
  }),
  route({
    method: 'patch',
    path: '/api/v1/knowledge/folders/:folderId',
    response: answers.WrittenFolder,
    tag: 'folders',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Update a folder',
    params: IdParam,
    body: c.exact({ name: c.line(1, 100), ...Fields }),
    uses: ['db', 'store'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const updated = await folders.updateFolder(deps.store, command, workspaceId, params.folderId, body)
      if (E.isLeft(updated)) return updated
      return folderReply(deps.db, workspaceId, params.folderId, updated.right.position)
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/knowledge/folders/:folderId',
    response: answers.FolderDeleted,
    tag: 'folders',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Delete a folder; its entries move to root first',
    params: IdParam,
    uses: ['config', 'db', 'store', 'runner'],
    handler: async ({ params, identity, command }, deps) => {
      const deleted = await folders.deleteFolder(
        deps.store,
        deps.db.pool,
        // Its sweep must see every entry written into it before it: a longer wait than a read's
        // (an entry the wait still misses is moved to root by the retention sweeper).
        (p) => deps.runner.waitFor(p, Math.max(FOLDER_SWEEP_WAIT_MS, deps.config.readYourWritesTimeoutMs)),
        command,
        memberOf(identity).workspaceId,
        params.folderId,
      )
      if (E.isLeft(deleted)) return deleted
      const { position, ...data } = deleted.right
      return E.right({ data, position })
    },
  }),
]
