import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as knowledge from '../../commands/knowledge'
import { fail } from '../../domain/shared'
import { type Identity, workspaceIdOf } from '../auth'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { pagination } from '../pagination'
import { type AnyRoute, readAfterWrite, replyWith, route } from '../route'
import { getEntry, listEntries } from '../views/knowledge'
import { FilterSource } from './search'

const CreateSource = t.keyof({ text: null, url: null, file: null, manual: null, document: null, faq: null, api_docs: null, transcript: null })
const Metadata = c.exact({ category: c.string(0, 200), tags: c.arrayOf(c.string(1, 100), 50), author: c.string(0, 200) })
const ChunkingOptions = c.exact({ chunkSizeTokens: c.integer(100, 2000), overlapTokens: c.integer(0, 500), preserveSentences: t.boolean })

const CreateBody = c.object(
  { title: c.string(1, 500), source: CreateSource },
  {
    content: c.string(0, 500_000),
    url: t.string,
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
})

const IdParam = t.type({ id: c.id })


const actorId = (identity: Identity) => (identity.kind === 'user' ? identity.userId : identity.kind === 'apiKey' ? identity.name : 'system')

/** `externalRef.<key>=<value>` query parameters, any number of them. */
const externalRefsOf = (query: Record<string, unknown>): E.Either<string[], Record<string, string>> => {
  const refs: Record<string, string> = {}
  const problems: string[] = []
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('externalRef.')) continue
    const name = key.slice('externalRef.'.length)
    if (!name || name.length > 100 || typeof value !== 'string' || value.length > 500) problems.push(`${key}: must be given once, as a string of at most 500 characters`)
    else refs[name] = value
  }
  return problems.length ? E.left(problems) : E.right(refs)
}

const knowledgeDeps = (deps: Deps) => ({ store: deps.store, db: deps.db.pool, embedder: deps.embedder })

/** The entry as the read model holds it once it reached the write. */
const entryReply = (deps: Deps, workspaceId: string, id: string, position: number, status = 200) =>
  readAfterWrite(deps, position, async () => (await getEntry(deps.db.pool, workspaceId, id)) ?? { id }, status)

/** SPEC.md "Knowledge entries" (the text path; url and file entries come with ingestion). */
export const entryRoutes: AnyRoute[] = [
  route({
    method: 'post', path: '/api/v1/knowledge', tag: 'knowledge', auth: 'bearer', permission: 'write:knowledge',
    summary: 'Create a knowledge entry (text and legacy sources are synchronous)',
    body: CreateBody,
    handler: async ({ body, identity, command }, deps) => {
      if (body.source === 'url' || body.source === 'file') {
        return fail('VALIDATION_ERROR', 'the request is not valid', [`source: ${body.source} entries are not available yet; use text`])
      }
      if (body.content === undefined || body.content.trim() === '') {
        return fail('VALIDATION_ERROR', 'the request is not valid', [`content: is required when source is ${body.source}`])
      }
      const workspaceId = workspaceIdOf(identity)
      const created = await knowledge.createTextEntry(knowledgeDeps(deps), command, {
        workspaceId,
        title: body.title.trim(),
        content: body.content,
        source: body.source,
        metadata: body.metadata ?? {},
        externalReferenceIds: body.externalReferenceIds ?? {},
        folderId: body.folderId ?? null,
        isEnabled: body.isEnabled ?? true,
        chunkingOptions: body.chunkingOptions ?? {},
      })
      if (E.isLeft(created)) return created
      return entryReply(deps, workspaceId, created.right.id, created.right.position, 201)
    },
  }),
  route({
    method: 'get', path: '/api/v1/knowledge', tag: 'knowledge', auth: 'bearer', permission: 'read:knowledge',
    summary: 'List entries, newest first (filters, externalRef.<key>=<value>, pagination)',
    query: ListQuery,
    handler: async ({ query, identity, ctx }, { db }) => {
      const refs = externalRefsOf(ctx.query)
      if (E.isLeft(refs)) return fail('VALIDATION_ERROR', 'the request is not valid', refs.left)
      const page = query.page ?? 1
      const limit = query.limit ?? 20
      const { items, total } = await listEntries(db.pool, workspaceIdOf(identity), { ...query, externalRefs: refs.right }, page, limit)
      return E.right({ data: { items, total, pagination: pagination(page, limit, total) } })
    },
  }),
  route({
    method: 'get', path: '/api/v1/knowledge/:id', tag: 'knowledge', auth: 'bearer', permission: 'read:knowledge', summary: 'Get an entry',
    params: IdParam,
    handler: async ({ params, identity }, { db }) => {
      const found = await getEntry(db.pool, workspaceIdOf(identity), params.id)
      return found ? E.right({ data: found }) : fail('NOT_FOUND', 'knowledge entry not found')
    },
  }),
  route({
    method: 'patch', path: '/api/v1/knowledge/:id', tag: 'knowledge', auth: 'bearer', permission: 'write:knowledge',
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
    method: 'delete', path: '/api/v1/knowledge/:id', tag: 'knowledge', auth: 'bearer', permission: 'write:knowledge',
    summary: 'Delete an entry, its chunks and embeddings; its content is cut from the event store',
    params: IdParam,
    handler: async ({ params, identity, command }, { store }) =>
      replyWith(await knowledge.deleteEntry(store, command, workspaceIdOf(identity), params.id, actorId(identity))),
  }),
  route({
    method: 'post', path: '/api/v1/knowledge/:id/move', tag: 'knowledge', auth: 'bearer', permission: 'write:knowledge',
    summary: 'Move an entry to a folder (null: root)',
    params: IdParam,
    body: t.type({ folderId: t.union([c.id, t.null]) }),
    handler: async ({ params, body, identity, command }, { store }) =>
      replyWith(await knowledge.moveEntry(store, command, workspaceIdOf(identity), params.id, body.folderId)),
  }),
  route({
    method: 'post', path: '/api/v1/knowledge/:id/verify', tag: 'knowledge', auth: 'bearer', permission: 'write:knowledge',
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
