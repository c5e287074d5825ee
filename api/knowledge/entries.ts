import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as knowledge from '../../commands/knowledge/knowledge'
import { deleteEntry } from '../../commands/knowledge/deleteEntry'
import { createEntry } from '../../commands/knowledge/createEntry'
import { fail } from '../../domain/shared'
import { workspaceIdOf } from '../auth'
import * as c from '../codecs'
import { pagination } from '../../queries/pagination'
import { type AnyRoute, replyWith, route } from '../route'
import { readMultipart, takeUploadSlot, uploadExtras } from './uploads'
import {
  IdParam,
  MULTIPART_JSON_FIELDS,
  Metadata,
  actorId,
  entryReply,
  externalRefsOf,
  knowledgeDeps,
  newEntry,
  newEntryDeps,
} from './shapes'
import { getFolder } from '../../queries/knowledge/folders'
import { entryChunks, getEntry, listEntries } from '../../queries/knowledge/knowledge'
import { entryTombstones, resolveAsOf } from '../../queries/asOf'
import * as answers from './answers'

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
const ChunkingOptions = c.exact({
  chunkSizeTokens: c.integer(100, 2000),
  overlapTokens: c.integer(0, 500),
  preserveSentences: t.boolean,
})

const CrawlOptionsBody = c.exact({
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

/** The list's folder filter for the entries in no folder (folder ids are generated, never this word). */
const ROOT = 'root'

const ListQuery = t.partial({
  page: c.intFromString(1, 1_000_000),
  limit: c.intFromString(1, 100),
  source: c.FilterSource,
  category: c.string(1, 200),
  tag: c.string(1, 100),
  folderId: c.described(t.union([t.literal(ROOT), c.id]), "A folder's id, or root: the entries in no folder"),
  isEnabled: c.booleanFromString,
  search: c.string(1, 500),
  freshness: t.keyof({ current: null, stale: null, unknown: null }),
  processingStatus: t.keyof({ pending: null, processing: null, completed: null, failed: null }),
  includeContent: c.booleanFromString,
  asOf: c.asOf,
})

/** Knowledge entries: text is synchronous; url and file answer at once with a pending task. */
export const entryRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/knowledge',
    response: answers.WrittenEntry,
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
    extras: uploadExtras,
    uses: ['config', 'db', 'store', 'embedder', 'blobs', 'parsers'],
    handler: async ({ body, identity, command, upload, countUpload, workspaceConfig }, deps) => {
      const workspaceId = workspaceIdOf(identity)
      const { crawlOptions: crawl, ...fields } = body
      // A URL is an upload too: counted once it is accepted (a file was counted before its body was read).
      const config = await workspaceConfig()
      const created = await createEntry(
        newEntryDeps(deps),
        command,
        config,
        newEntry({ ...fields, workspaceId, crawl, file: upload }),
        countUpload,
      )
      if (E.isLeft(created)) return created
      return entryReply(deps.db, workspaceId, created.right.id, created.right.position, 201, config.freshnessDays)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge',
    response: answers.EntryList,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'List entries, newest first (filters, externalRef.<key>=<value>, pagination)',
    query: ListQuery,
    extraQuery: (name) => name.startsWith('externalRef.'),
    uses: ['db', 'store', 'runner', 'config'],
    handler: async ({ query, identity, extraQuery }, { db, store, runner, config }) => {
      const workspaceId = workspaceIdOf(identity)
      const refs = externalRefsOf(extraQuery)
      if (E.isLeft(refs)) return fail('VALIDATION_ERROR', 'the request is not valid', refs.left)
      // A folder that is not there (or another workspace's) is a wrong id, not an empty folder.
      const inRoot = query.folderId === ROOT
      if (query.folderId && !inRoot && !(await getFolder(db.pool, workspaceId, query.folderId)))
        return fail('NOT_FOUND', 'folder not found')
      const asOf = await resolveAsOf({ db, store, runner, config }, workspaceId, query.asOf)
      if (E.isLeft(asOf)) return asOf
      const at = asOf.right?.position
      const page = query.page ?? 1
      const limit = query.limit ?? 20
      const filters = { ...query, folderId: inRoot ? null : query.folderId, externalRefs: refs.right }
      const { items, total } = await listEntries(db.pool, workspaceId, filters, page, limit, at)
      return E.right({
        data: {
          items,
          total,
          pagination: pagination(page, limit, total),
          // As of a past moment: also what remains of the entries deleted since.
          ...(asOf.right ? { asOf: asOf.right, deleted: await entryTombstones(db.pool, workspaceId, at ?? 0) } : {}),
        },
      })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/:id',
    response: answers.EntryRead,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Get an entry, as it stands or as it stood at a past moment (asOf)',
    params: IdParam,
    query: t.partial({ asOf: c.asOf }),
    uses: ['db', 'store', 'runner', 'config'],
    handler: async ({ params, query, identity }, { db, store, runner, config }) => {
      const workspaceId = workspaceIdOf(identity)
      const asOf = await resolveAsOf({ db, store, runner, config }, workspaceId, query.asOf)
      if (E.isLeft(asOf)) return asOf
      const at = asOf.right?.position
      const found = await getEntry(db.pool, workspaceId, params.id, at)
      if (found) return E.right({ data: asOf.right ? { ...found, asOf: asOf.right } : found })
      // Deleted since: its content is cut, as of any time; the title and the deletion remain.
      const [tombstone] = at === undefined ? [] : await entryTombstones(db.pool, workspaceId, at, params.id)
      if (tombstone)
        return E.right({
          data: { ...tombstone, asOf: asOf.right, message: 'this entry was deleted since; its content is not kept' },
        })
      return fail('NOT_FOUND', 'knowledge entry not found')
    },
  }),
  route({
    method: 'patch',
    path: '/api/v1/knowledge/:id',
    response: answers.WrittenEntry,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Update an entry (content re-chunks and re-embeds)',
    params: IdParam,
    body: c.exact({ title: c.string(1, 500), content: c.string(1, 100_000), metadata: Metadata, isEnabled: t.boolean }),
    uses: ['db', 'store', 'embedder', 'parsers'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = workspaceIdOf(identity)
      const changes = { ...body, ...(body.title ? { title: body.title.trim() } : {}) }
      const updated = await knowledge.updateEntry(knowledgeDeps(deps), command, workspaceId, params.id, changes)
      if (E.isLeft(updated)) return updated
      return entryReply(deps.db, workspaceId, params.id, updated.right.position)
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/knowledge/:id',
    response: answers.Deleted,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Delete an entry, its chunks and embeddings; its content is cut from the event store',
    params: IdParam,
    uses: ['db', 'store', 'blobs'],
    handler: async ({ params, identity, command }, { store, blobs, db }) =>
      replyWith(
        await deleteEntry(store, command, workspaceIdOf(identity), params.id, actorId(identity), {
          blobs,
          db: db.pool,
        }),
      ),
  }),
  route({
    method: 'post',
    path: '/api/v1/knowledge/:id/move',
    response: answers.Moved,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Move an entry to a folder (null: root)',
    params: IdParam,
    body: c.object({ folderId: t.union([c.id, t.null]) }, {}),
    uses: ['store'],
    handler: async ({ params, body, identity, command }, { store }) =>
      replyWith(await knowledge.moveEntry(store, command, workspaceIdOf(identity), params.id, body.folderId)),
  }),
  route({
    method: 'post',
    path: '/api/v1/knowledge/:id/verify',
    response: answers.WrittenEntry,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Mark an entry verified now (drives freshness)',
    params: IdParam,
    uses: ['db', 'store'],
    handler: async ({ params, identity, command }, { store, db }) => {
      const workspaceId = workspaceIdOf(identity)
      const verified = await knowledge.verifyEntry(store, command, workspaceId, params.id, actorId(identity))
      if (E.isLeft(verified)) return verified
      return entryReply(db, workspaceId, params.id, verified.right.position)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/:id/chunks',
    response: answers.Chunks,
    tag: 'knowledge',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "An entry's chunks as search serves them, in order (offsets into its content)",
    params: IdParam,
    uses: ['db'],
    handler: async ({ params, identity }, { db }) => {
      const chunks = await entryChunks(db.pool, workspaceIdOf(identity), params.id)
      return chunks ? E.right({ data: { items: chunks } }) : fail('NOT_FOUND', 'knowledge entry not found')
    },
  }),
]
