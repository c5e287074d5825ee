import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { configureSync, requestSync } from '../../commands/knowledge/ingestion'
import { fail } from '../../domain/shared'
import { workspaceIdOf } from '../auth'
import * as c from '../codecs'
import { ApiError } from '../errors'
import { type AnyRoute, readBack, route } from '../route'
import { entryRow, syncConfigView } from '../../queries/knowledge/knowledge'
import { getTask, listTasks } from '../../queries/knowledge/tasks'
import { IdParam, knowledgeDeps } from './shapes'
import * as answers from './answers'

const TaskStatus = t.keyof({ pending: null, processing: null, completed: null, failed: null })

/** Processing tasks and URL sync. */
export const ingestionRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/knowledge/tasks',
    response: answers.TaskList,
    tag: 'tasks',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'List processing tasks, newest first',
    query: t.partial({ status: TaskStatus, limit: c.intFromString(1, 100), page: c.intFromString(1, 1_000_000) }),
    uses: ['db'],
    handler: async ({ query, identity }, { db }) =>
      E.right({ data: await listTasks(db.pool, workspaceIdOf(identity), query.status, query.limit ?? 20, query.page) }),
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/tasks/:taskId',
    response: answers.Task,
    tag: 'tasks',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "A task's fields, directly in data",
    params: t.type({ taskId: c.id }),
    uses: ['db'],
    handler: async ({ params, identity }, { db }) => {
      const found = await getTask(db.pool, workspaceIdOf(identity), params.taskId)
      return found ? E.right({ data: found }) : fail('NOT_FOUND', 'task not found')
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/:id/sync-config',
    response: answers.SyncConfig,
    tag: 'sync',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "A URL entry's sync configuration and state",
    params: IdParam,
    uses: ['db'],
    handler: async ({ params, identity }, { db }) => {
      const row = await entryRow(db.pool, workspaceIdOf(identity), params.id)
      if (!row) return fail('NOT_FOUND', 'knowledge entry not found')
      if (!row.source_url)
        return fail('VALIDATION_ERROR', 'the request is not valid', ['id: the entry has no URL to sync'])
      return E.right({ data: syncConfigView(row, true) })
    },
  }),
  route({
    method: 'patch',
    path: '/api/v1/knowledge/:id/sync-config',
    response: answers.SyncConfig,
    tag: 'sync',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Switch scheduled syncing of a URL entry on or off, and its interval',
    params: IdParam,
    body: c.object({ enabled: t.boolean }, { intervalHours: c.number(1, 720) }),
    uses: ['db', 'store', 'embedder', 'parsers'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = workspaceIdOf(identity)
      const row = await entryRow(deps.db.pool, workspaceId, params.id)
      const settings = { enabled: body.enabled, intervalHours: body.intervalHours ?? row?.sync_interval_hours ?? 24 }
      const done = await configureSync(knowledgeDeps(deps), command, workspaceId, params.id, settings)
      if (E.isLeft(done)) return done
      return readBack(done.right.position, async () => {
        const after = await entryRow(deps.db.pool, workspaceId, params.id)
        // Deleted between the change and this read: as gone as it now is.
        if (!after) throw new ApiError('NOT_FOUND', 'knowledge entry not found')
        return syncConfigView(after)
      })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/knowledge/:id/sync',
    response: answers.Queued,
    tag: 'sync',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Re-fetch and reprocess a URL entry now ("unchanged" while a sync is already pending or running)',
    params: IdParam,
    uses: ['db', 'store', 'embedder', 'parsers'],
    handler: async ({ params, identity, command }, deps) => {
      const done = await requestSync(knowledgeDeps(deps), command, workspaceIdOf(identity), params.id, true)
      if (E.isLeft(done)) return done
      if (!done.right.taskId)
        return E.right({ data: { status: 'unchanged', message: 'a sync of this entry is already pending or running' } })
      return E.right({
        data: {
          taskId: done.right.taskId,
          status: 'pending',
          message: 'sync queued; poll GET /api/v1/knowledge/tasks/{taskId}',
        },
        status: 202,
        position: done.right.position,
      })
    },
  }),
]
