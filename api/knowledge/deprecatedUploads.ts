import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { acceptUrl } from '../../commands/urls'
import { createEntry, createQueuedText } from '../../commands/knowledge/createEntry'
import { firstChars } from '../../commands/knowledge/fileNames'
import { fail } from '../../domain/shared'
import { workspaceIdOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { readMultipart, takeUploadSlot, uploadExtras } from './uploads'
import { describeErrors } from '../validation'
import { MULTIPART_JSON_FIELDS, Metadata, newEntryDeps } from './shapes'
import * as answers from './answers'

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

/** The upload endpoints the unified create replaced, kept for the clients that still call them. */
export const deprecatedUploadRoutes: AnyRoute[] = [
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
]
