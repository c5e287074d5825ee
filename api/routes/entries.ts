import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as knowledge from '../../commands/knowledge'
import type { CrawlOptions, StorageInfo } from '../../domain/entry'
import { type DomainError, fail } from '../../domain/shared'
import { type Identity, workspaceIdOf } from '../auth'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { pagination } from '../../queries/pagination'
import { type AnyRoute, readAfterWrite, replyWith, route } from '../route'
import { readMultipart, storeUpload, takeUploadSlot, titleOf } from '../upload'
import { getFolder } from '../../queries/folders'
import { getEntry, listEntries } from '../../queries/knowledge'
import { createSourcedEntry } from '../../commands/ingestion'
import { FetchError, checkUrl } from '../../adapters/fetcher'
import { FilterSource } from './search'

const CreateSource = t.keyof({
  text: null,
  url: null,
  file: null,
  manual: null,
  document: null,
  faq: null,
  api_docs: null,
  transcript: null,
})
export const Metadata = c.exact({
  category: c.string(0, 200),
  tags: c.arrayOf(c.string(1, 100), 50),
  author: c.string(0, 200),
})
const ChunkingOptions = c.exact({
  chunkSizeTokens: c.integer(100, 2000),
  overlapTokens: c.integer(0, 500),
  preserveSentences: t.boolean,
})

export const CrawlOptionsBody = c.exact({
  depth: c.integer(0, 2),
  maxPages: c.integer(1, 50),
  sameDomainOnly: t.boolean,
})

const CreateBody = c.object(
  { source: CreateSource },
  {
    // Required, except for a file: its title then defaults to the file's name.
    title: c.string(1, 500),
    content: c.string(0, 500_000),
    url: c.string(1, 2048),
    crawlOptions: CrawlOptionsBody,
    folderId: t.union([c.id, t.null]),
    metadata: Metadata,
    externalReferenceIds: c.stringMap,
    chunkingOptions: ChunkingOptions,
    isEnabled: t.boolean,
  },
)

const ListQuery = t.partial({
  page: c.intFromString(1, 1_000_000),
  limit: c.intFromString(1, 100),
  source: FilterSource,
  category: c.string(1, 200),
  tag: c.string(1, 100),
  folderId: c.id,
  isEnabled: c.booleanFromString,
  search: c.string(1, 500),
  freshness: t.keyof({ current: null, stale: null, unknown: null }),
  processingStatus: t.keyof({ pending: null, processing: null, completed: null, failed: null }),
  includeContent: c.booleanFromString,
})

export const IdParam = t.type({ id: c.id })

export const actorId = (identity: Identity) =>
  identity.kind === 'user' ? identity.userId : identity.kind === 'apiKey' ? identity.name : 'system'

/** `externalRef.<key>=<value>` query parameters, any number of them. */
const externalRefsOf = (query: Record<string, unknown>): E.Either<string[], Record<string, string>> => {
  const refs: Record<string, string> = {}
  const problems: string[] = []
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('externalRef.')) continue
    const name = key.slice('externalRef.'.length)
    if (!name || name.length > 100 || typeof value !== 'string' || value.length > 500)
      problems.push(`${key}: must be given once, as a string of at most 500 characters`)
    else refs[name] = value
  }
  return problems.length ? E.left(problems) : E.right(refs)
}

export const knowledgeDeps = (deps: Deps) => ({
  store: deps.store,
  db: deps.db.pool,
  embedder: deps.embedder,
  parsers: deps.parsers,
})

/** The entry as the read model holds it once it reached the write. */
export const entryReply = (deps: Deps, workspaceId: string, id: string, position: number, status = 200) =>
  readAfterWrite(deps, position, async () => (await getEntry(deps.db.pool, workspaceId, id)) ?? { id }, status)

/** A URL a task may fetch, or the reason it may not (checked again at every hop when fetched). */
export const validUrl = (deps: Deps, url: string, field = 'url'): E.Either<DomainError, string> => {
  try {
    return E.right(checkUrl(url, deps.config.allowPrivateUrls).href)
  } catch (error) {
    if (error instanceof FetchError)
      return fail('VALIDATION_ERROR', 'the request is not valid', [`${field}: ${error.message}`])
    throw error
  }
}

export const MULTIPART_JSON_FIELDS = [
  'metadata',
  'chunkingOptions',
  'externalReferenceIds',
  'crawlOptions',
  'customMetadata',
]

/** Knowledge entries: text is synchronous; url and file answer at once with a pending task. */
export const entryRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/knowledge',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Create a knowledge entry (text and legacy sources are synchronous)',
    body: CreateBody,
    multipart: 'also',
    // A multipart form (source file) is an upload: counted, then read under the workspace's size cap.
    before: async ({ identity, ctx }, deps) => {
      if (!ctx.is('multipart/form-data')) return
      await takeUploadSlot(deps, ctx, workspaceIdOf(identity))
      await readMultipart(ctx, deps, workspaceIdOf(identity), MULTIPART_JSON_FIELDS)
    },
    handler: async ({ body, identity, command, upload, ctx }, deps) => {
      const workspaceId = workspaceIdOf(identity)
      const title =
        body.title?.trim() || (body.source === 'file' && upload ? titleOf(upload.fileName, upload.bytes) : undefined)
      if (!title)
        return fail('VALIDATION_ERROR', 'the request is not valid', [
          `title: is required when source is ${body.source}`,
        ])
      const common = {
        workspaceId,
        title,
        source: body.source,
        metadata: body.metadata ?? {},
        externalReferenceIds: body.externalReferenceIds ?? {},
        folderId: body.folderId ?? null,
        isEnabled: body.isEnabled ?? true,
        chunkingOptions: body.chunkingOptions ?? {},
      }
      const multipart = Boolean(ctx.is('multipart/form-data'))
      if (body.source === 'url' || body.source === 'file') {
        let source: { url: string; crawl: CrawlOptions } | { storage: StorageInfo }
        if (body.source === 'url') {
          if (body.url === undefined)
            return fail('VALIDATION_ERROR', 'the request is not valid', ['url: is required when source is url'])
          const url = validUrl(deps, body.url)
          if (E.isLeft(url)) return url
          if (!multipart) await takeUploadSlot(deps, ctx, workspaceId)
          const crawl = {
            depth: body.crawlOptions?.depth ?? 0,
            maxPages: body.crawlOptions?.maxPages ?? 10,
            sameDomainOnly: body.crawlOptions?.sameDomainOnly ?? true,
          }
          source = { url: url.right, crawl }
        } else {
          if (!multipart || !upload)
            return fail('VALIDATION_ERROR', 'the request is not valid', [
              'file: is required when source is file (a multipart/form-data part named file)',
            ])
          const stored = await storeUpload(deps, workspaceId, upload)
          if (E.isLeft(stored)) return stored
          source = { storage: stored.right }
        }
        const created = await createSourcedEntry(knowledgeDeps(deps), command, { ...common, ...source })
        if (E.isLeft(created)) return created
        return entryReply(deps, workspaceId, created.right.id, created.right.position, 201)
      }
      if (body.content === undefined || body.content.trim() === '') {
        return fail('VALIDATION_ERROR', 'the request is not valid', [
          `content: is required when source is ${body.source}`,
        ])
      }
      const created = await knowledge.createTextEntry(knowledgeDeps(deps), command, {
        ...common,
        content: body.content,
      })
      if (E.isLeft(created)) return created
      return entryReply(deps, workspaceId, created.right.id, created.right.position, 201)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'List entries, newest first (filters, externalRef.<key>=<value>, pagination)',
    query: ListQuery,
    extraQuery: (name) => name.startsWith('externalRef.'),
    handler: async ({ query, identity, extraQuery }, { db }) => {
      const refs = externalRefsOf(extraQuery)
      if (E.isLeft(refs)) return fail('VALIDATION_ERROR', 'the request is not valid', refs.left)
      // A folder that is not there (or another workspace's) is a wrong id, not an empty folder.
      if (query.folderId && !(await getFolder(db.pool, workspaceIdOf(identity), query.folderId)))
        return fail('NOT_FOUND', 'folder not found')
      const page = query.page ?? 1
      const limit = query.limit ?? 20
      const { items, total } = await listEntries(
        db.pool,
        workspaceIdOf(identity),
        { ...query, externalRefs: refs.right },
        page,
        limit,
      )
      return E.right({ data: { items, total, pagination: pagination(page, limit, total) } })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/:id',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Get an entry',
    params: IdParam,
    handler: async ({ params, identity }, { db }) => {
      const found = await getEntry(db.pool, workspaceIdOf(identity), params.id)
      return found ? E.right({ data: found }) : fail('NOT_FOUND', 'knowledge entry not found')
    },
  }),
  route({
    method: 'patch',
    path: '/api/v1/knowledge/:id',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Update an entry (content re-chunks and re-embeds)',
    params: IdParam,
    body: c.exact({ title: c.string(1, 500), content: c.string(1, 100_000), metadata: Metadata, isEnabled: t.boolean }),
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = workspaceIdOf(identity)
      const changes = { ...body, ...(body.title ? { title: body.title.trim() } : {}) }
      const updated = await knowledge.updateEntry(knowledgeDeps(deps), command, workspaceId, params.id, changes)
      if (E.isLeft(updated)) return updated
      return entryReply(deps, workspaceId, params.id, updated.right.position)
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/knowledge/:id',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Delete an entry, its chunks and embeddings; its content is cut from the event store',
    params: IdParam,
    handler: async ({ params, identity, command }, { store, blobs, db }) =>
      replyWith(
        await knowledge.deleteEntry(store, command, workspaceIdOf(identity), params.id, actorId(identity), {
          blobs,
          db: db.pool,
        }),
      ),
  }),
  route({
    method: 'post',
    path: '/api/v1/knowledge/:id/move',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Move an entry to a folder (null: root)',
    params: IdParam,
    body: c.object({ folderId: t.union([c.id, t.null]) }, {}),
    handler: async ({ params, body, identity, command }, { store }) =>
      replyWith(await knowledge.moveEntry(store, command, workspaceIdOf(identity), params.id, body.folderId)),
  }),
  route({
    method: 'post',
    path: '/api/v1/knowledge/:id/verify',
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Mark an entry verified now (drives freshness)',
    params: IdParam,
    handler: async ({ params, identity, command }, deps) => {
      const workspaceId = workspaceIdOf(identity)
      const verified = await knowledge.verifyEntry(deps.store, command, workspaceId, params.id, actorId(identity))
      if (E.isLeft(verified)) return verified
      return entryReply(deps, workspaceId, params.id, verified.right.position)
    },
  }),
]
