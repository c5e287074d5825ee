import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { configureSync, requestSync } from '../../commands/knowledge/ingestion'
import { acceptUrl } from '../../commands/urls'
import { createEntry, createQueuedText } from '../../commands/knowledge/createEntry'
import { firstChars } from '../../commands/knowledge/fileNames'
import { fail } from '../../domain/shared'
import { workspaceIdOf } from '../auth'
import * as c from '../codecs'
import { ApiError } from '../errors'
import { type AnyRoute, readBack, route } from '../route'
import { readMultipart, takeUploadSlot, uploadExtras } from './uploads'
import { entryRow, syncConfigView } from '../../queries/knowledge/knowledge'
import { getTask, listTasks } from '../../queries/knowledge/tasks'
import { describeErrors } from '../validation'
import { IdParam, MULTIPART_JSON_FIELDS, Metadata, knowledgeDeps, newEntryDeps } from './shapes'
import * as answers from './answers'

const TaskStatus = t.keyof({ pending: null, processing: null, completed: null, failed: null })

/** The deprecated endpoints answer with these headers (the successor is the unified create). */
const DEPRECATED = { Deprecation: 'true', Link: '</api/v1/knowledge>; rel="successor-version"' }

/** customMetadata: a JSON object that becomes the entry's metadata, checked as the unified endpoint checks it. */
const customMetadata = (value: unknown): E.Either<string[], t.TypeOf<typeof Metadata>> => {
  if (value === undefined) return E.right({})
  if (!value || typeof value !== 'object' || Array.isArray(value))
    return E.left(['customMetadata: must be a JSON object'])
  return E.mapLeft((errors: t.Errors) => describeErrors(errors, 'customMetadata.'))(Metadata.decode(value))
}

const pendingReply = (taskId: string, documentId: string, position: number) => ({
  data: {
    taskId,
    documentId,
    status: 'pending',
    message: 'Accepted for processing; poll GET /api/v1/knowledge/tasks/{taskId}',
  },
  status: 202,
  position,
  headers: DEPRECATED,
})

/** Processing tasks, URL sync and the deprecated upload endpoints. */
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
    method: 'post',
    path: '/api/v1/knowledge/upload/file',
    response: answers.Queued,
    tag: 'deprecated',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Deprecated: upload a file (use POST /api/v1/knowledge with source file)',
    multipart: 'only',
    before: async ({ identity, ctx }, deps) => {
      await takeUploadSlot(deps, ctx, workspaceIdOf(identity))
      if (ctx.is('multipart/form-data')) await readMultipart(ctx, deps, workspaceIdOf(identity), MULTIPART_JSON_FIELDS)
    },
    body: c.exact({ title: c.string(1, 500), folderId: c.id, customMetadata: t.unknown }),
    extras: uploadExtras,
    uses: ['config', 'db', 'store', 'embedder', 'blobs', 'parsers'],
    handler: async ({ body, identity, command, upload, workspaceConfig }, deps) => {
      const custom = customMetadata(body.customMetadata)
      if (E.isLeft(custom)) return fail('VALIDATION_ERROR', 'the request is not valid', custom.left)
      const created = await createEntry(newEntryDeps(deps), command, await workspaceConfig(), {
        workspaceId: workspaceIdOf(identity),
        title: body.title,
        source: 'file',
        file: upload,
        metadata: custom.right,
        externalReferenceIds: {},
        folderId: body.folderId ?? null,
        isEnabled: true,
        chunkingOptions: { chunkSizeTokens: 512, overlapTokens: 50 },
      })
      if (E.isLeft(created)) return created
      return E.right(pendingReply(created.right.taskId ?? '', created.right.id, created.right.position))
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/knowledge/upload',
    response: answers.Queued,
    tag: 'deprecated',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Deprecated: ingest a URL or text (use POST /api/v1/knowledge)',
    before: async ({ identity, ctx }, deps) => takeUploadSlot(deps, ctx, workspaceIdOf(identity)),
    body: c.object(
      { sourceType: t.keyof({ url: null, text: null }) },
      {
        url: c.string(1, 2048),
        content: c.string(1, 500_000),
        title: c.string(1, 500),
        folderId: c.id,
        customMetadata: t.unknown,
        chunkingOptions: c.exact({
          chunkSize: c.integer(100, 2000),
          chunkOverlap: c.integer(0, 500),
          tokens: t.boolean,
        }),
      },
    ),
    extras: uploadExtras,
    uses: ['config', 'db', 'store', 'embedder', 'blobs', 'parsers'],
    handler: async ({ body, identity, command, workspaceConfig }, deps) => {
      const config = await workspaceConfig()
      const custom = customMetadata(body.customMetadata)
      if (E.isLeft(custom)) return fail('VALIDATION_ERROR', 'the request is not valid', custom.left)
      const workspaceId = workspaceIdOf(identity)
      const common = {
        workspaceId,
        metadata: custom.right,
        externalReferenceIds: {},
        folderId: body.folderId ?? null,
        isEnabled: true,
        chunkingOptions: {
          chunkSizeTokens: body.chunkingOptions?.chunkSize ?? 512,
          overlapTokens: body.chunkingOptions?.chunkOverlap ?? 50,
        },
      }
      if (body.sourceType === 'url') {
        // Untitled, the entry is named by its URL as checked (percent-encoded, so cut safely).
        const checked = body.url === undefined ? undefined : acceptUrl(body.url, deps.config.allowPrivateUrls)
        if (checked && E.isLeft(checked)) return checked
        const created = await createEntry(newEntryDeps(deps), command, config, {
          ...common,
          title: body.title?.trim() || (checked ? firstChars(checked.right, 500) : undefined),
          source: 'url',
          url: body.url,
          crawl: { depth: 0, maxPages: 1, sameDomainOnly: true },
        })
        if (E.isLeft(created)) return created
        return E.right(pendingReply(created.right.taskId ?? '', created.right.id, created.right.position))
      }
      if (!body.content?.trim())
        return fail('VALIDATION_ERROR', 'the request is not valid', ['content: is required when sourceType is text'])
      // Text goes through the same task as a file, so the answer has its task.
      const created = await createQueuedText(newEntryDeps(deps), command, config, {
        ...common,
        title: body.title,
        source: 'text',
        content: body.content,
      })
      if (E.isLeft(created)) return created
      return E.right(pendingReply(created.right.taskId, created.right.id, created.right.position))
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
