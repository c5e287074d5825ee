import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Context } from 'koa'
import { createEntry } from '../../commands/knowledge/createEntry'
import { createFolder } from '../../commands/knowledge/folders'
import { loadKbConfig } from '../../commands/knowledge/kbConfig'
import { workspaceExists } from '../../commands/accounts'
import { fail } from '../../domain/shared'
import { getFolder, listFolders } from '../../queries/knowledge/folders'
import { entryCount, listEntries } from '../../queries/knowledge/knowledge'
import { pagination } from '../../queries/pagination'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { ApiError } from '../errors'
import { type AnyRoute, readBack, route } from '../route'
import { readMultipart, uploadExtras } from './uploads'
import * as answers from './answers'
import { MULTIPART_JSON_FIELDS, Metadata, entryReply, externalRefsOf, newEntry, newEntryDeps } from './shapes'

// What the operator's `kb import` calls with the admin token: a workspace's entries and folders,
// written by the same commands (types, admission, maxDocuments, events) as a member's requests.
// An operator's load is not a user's upload: it is not counted against the uploads a minute.

const WorkspaceParam = t.type({ id: c.id })

/** A workspace that was never created is a wrong id (its entries would belong to nobody). */
const workspaceMustExist = async ({ ctx }: { ctx: Context }, deps: Deps) => {
  const id = String(ctx.params?.id ?? '')
  if (!(await workspaceExists(deps.store, id))) throw new ApiError('NOT_FOUND', `workspace ${id} not found`)
}

const ImportBody = c.object(
  { source: t.keyof({ text: null, url: null, file: null }) },
  {
    // Required, except for a file: its title then comes from the document (or its name).
    title: c.string(1, 500),
    content: c.string(0, 500_000),
    url: c.string(1, 2048),
    folderId: t.union([c.id, t.null]),
    metadata: Metadata,
    externalReferenceIds: c.stringMap,
    // From another store: the vector of a text entry that is one passage for the service's model.
    embedding: c.object({ model: c.string(1, 200), vector: t.array(t.number) }),
  },
)

const ListQuery = t.partial({
  page: c.intFromString(1, 1_000_000),
  limit: c.intFromString(1, 100),
  processingStatus: t.keyof({ pending: null, processing: null, completed: null, failed: null }),
  includeContent: c.booleanFromString,
})

/** How long an admitted create waits at most for the read models to count it, before the next is admitted. */
const COUNTED_WITHIN_MS = 60_000

/** Creates of this process admitted into a workspace and not yet counted by its read models (kept: one a workspace). */
const admitting = new Map<string, { busy: number; wake: Array<() => void> }>()

/**
 * maxDocuments is checked against the read models, so creates at once could all pass at the limit.
 * Near it, an import's creates go one at a time, each counted before the next is admitted; below it,
 * they go at once. (Within this process: the operator's import runs against one service.)
 */
const withinQuota = async <T extends E.Either<unknown, { position: number }>>(
  deps: Pick<Deps, 'db' | 'runner' | 'config'>,
  workspaceId: string,
  maxDocuments: number,
  create: () => Promise<T>,
): Promise<T> => {
  const gate = admitting.get(workspaceId) ?? { busy: 0, wake: [] }
  admitting.set(workspaceId, gate)
  for (;;) {
    const count = await entryCount(deps.db.pool, workspaceId)
    // Checked and taken with no wait between them.
    if (gate.busy === 0 || count + gate.busy < maxDocuments) break
    await new Promise<void>((resolve) => gate.wake.push(resolve))
  }
  gate.busy++
  try {
    const created = await create()
    // Counted once the read models hold it: until then it stays busy, however long a loaded machine takes
    // (the answer's own wait gives up sooner), unless the projections stop moving.
    if (E.isRight(created)) await deps.runner.waitFor(created.right.position, COUNTED_WITHIN_MS)
    return created
  } finally {
    gate.busy--
    for (const wake of gate.wake.splice(0)) wake()
  }
}

export const knowledgeOperatorRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/admin/workspaces/:id/knowledge',
    response: answers.WrittenEntry,
    tag: 'operators',
    auth: 'admin',
    summary:
      'Create an entry in a workspace as the operator (kb import): text, a URL or a file (multipart), with the same ' +
      'type checks, admission, maxDocuments and events as POST /api/v1/knowledge; not counted against the ' +
      "workspace's uploads a minute. A text entry may bring its vector from another store (embedding: the " +
      "service's model, for content that is one passage for it)",
    params: WorkspaceParam,
    body: ImportBody,
    multipart: 'also',
    before: async ({ ctx }, deps) => {
      await workspaceMustExist({ ctx }, deps)
      if (ctx.is('multipart/form-data')) await readMultipart(ctx, deps, ctx.params.id, MULTIPART_JSON_FIELDS)
    },
    extras: uploadExtras,
    uses: ['config', 'db', 'store', 'embedder', 'blobs', 'parsers', 'runner'],
    handler: async ({ params, body, command, upload }, deps) => {
      const workspaceId = params.id
      if (body.embedding && body.source !== 'text')
        return fail('VALIDATION_ERROR', 'the request is not valid', ['embedding: given only with source text'])
      const config = await loadKbConfig(deps.store, workspaceId)
      const created = await withinQuota(deps, workspaceId, config.maxDocuments, () =>
        createEntry(
          newEntryDeps(deps),
          { ...command, workspaceId },
          config,
          newEntry({ ...body, workspaceId, file: upload }),
        ),
      )
      if (E.isLeft(created)) return created
      return entryReply(deps.db, workspaceId, created.right.id, created.right.position, 201, config.freshnessDays)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/admin/workspaces/:id/knowledge',
    response: answers.EntryList,
    tag: 'operators',
    auth: 'admin',
    summary: "A workspace's entries, newest first, as the operator sees them (externalRef.<key>=<value> filters)",
    params: WorkspaceParam,
    query: ListQuery,
    extraQuery: (name) => name.startsWith('externalRef.'),
    before: workspaceMustExist,
    uses: ['db'],
    handler: async ({ params, query, extraQuery }, { db }) => {
      const refs = externalRefsOf(extraQuery)
      if (E.isLeft(refs)) return fail('VALIDATION_ERROR', 'the request is not valid', refs.left)
      const page = query.page ?? 1
      const limit = query.limit ?? 20
      const filters = { ...query, externalRefs: refs.right }
      const { items, total } = await listEntries(db.pool, params.id, filters, page, limit)
      return E.right({ data: { items, total, pagination: pagination(page, limit, total) } })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/admin/workspaces/:id/knowledge/folders',
    response: answers.FolderList,
    tag: 'operators',
    auth: 'admin',
    summary: "A workspace's folders, oldest first",
    params: WorkspaceParam,
    before: workspaceMustExist,
    uses: ['db'],
    handler: async ({ params }, { db }) => E.right({ data: { folders: await listFolders(db.pool, params.id) } }),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/workspaces/:id/knowledge/folders',
    response: answers.WrittenFolder,
    tag: 'operators',
    auth: 'admin',
    summary: 'Create a folder in a workspace as the operator (names unique per workspace, case-insensitive)',
    params: WorkspaceParam,
    body: c.object({ name: c.line(1, 100) }, { description: c.string(0, 500) }),
    before: workspaceMustExist,
    uses: ['db', 'store'],
    handler: async ({ params, body, command }, { db, store }) => {
      const { name, ...fields } = body
      const created = await createFolder(store, { ...command, workspaceId: params.id }, params.id, name, fields)
      if (E.isLeft(created)) return created
      const { id, position } = created.right
      return readBack(position, async () => (await getFolder(db.pool, params.id, id)) ?? { id }, 201)
    },
  }),
]
