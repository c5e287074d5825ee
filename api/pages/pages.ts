import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { writePageByMode } from '../../commands/pages/writes'
import { activeCollection, collectionNotFound } from '../../commands/pages/collections'
import { deletePage, pageDeps, setPageCollection, verifyPage, writePage } from '../../commands/pages/pages'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import {
  PAGE_TITLE_MAX,
  PAGE_WRITE_MAX,
  VersionNumber,
  IdParam,
  VersionFromString,
  humanAuthor,
  livePage,
  notFound,
  pageReply,
  personOf,
  verificationOn,
} from './shapes'
import { listPages, pageView, readVersion, versionView } from '../../queries/pages/pages'
import { pageAt, resolveAsOf } from '../../queries/asOf'
import * as answers from './answers'

const State = t.keyof({ unverified: null, verified: null, changed_since_verified: null })

const verificationOff = fail(
  'VALIDATION_ERROR',
  'verification is off in this workspace: turn it on with PATCH /api/v1/knowledge/config { verification: { enabled: ' +
    'true } }',
  ['verification.enabled: is false'],
)

/** People's side of pages: create, list, read, change, delete and verify (versions: pageVersions.ts). */
export const pageRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/pages',
    response: answers.WrittenPage,
    tag: 'pages',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Create a page (a person is its author; never held for review)',
    body: c.object({ title: c.line(1, PAGE_TITLE_MAX), content: c.string(1, PAGE_WRITE_MAX) }, { collectionId: c.id }),
    uses: ['db', 'store', 'embedder'],
    handler: async ({ body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const written = await writePageByMode(pageDeps(deps), command, {
        workspaceId,
        author: humanAuthor(identity),
        mode: 'create',
        ...body,
      })
      if (E.isLeft(written)) return written
      return pageReply(deps, workspaceId, written.right.pageId, written.right.position, 201)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/pages',
    response: answers.PageList,
    tag: 'pages',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Pages, most recently written first',
    query: c.exact({
      page: c.intFromString(1, 1_000_000),
      limit: c.intFromString(1, 100),
      collectionId: c.id,
      state: State,
      search: c.string(1, PAGE_TITLE_MAX),
    }),
    uses: ['db', 'store'],
    handler: async ({ query, identity }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const verification = await verificationOn(deps, workspaceId)
      if (query.state && !verification) return verificationOff
      return E.right({
        data: await listPages(
          deps.db.pool,
          workspaceId,
          { ...query, page: query.page ?? 1, limit: query.limit ?? 20 },
          verification,
        ),
      })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/pages/:id',
    response: answers.PageRead,
    tag: 'pages',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'A page at its latest version, at ?version=N, or as it stood at a past moment (?asOf)',
    params: IdParam,
    query: c.exact({ version: VersionFromString, asOf: c.asOf }),
    uses: ['db', 'store', 'runner', 'config'],
    handler: async ({ params, query, identity }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      if (query.asOf && query.version)
        return fail('VALIDATION_ERROR', 'ask for a version or a moment, not both', ['asOf: not with version'])
      const asOf = await resolveAsOf(deps, workspaceId, query.asOf)
      if (E.isLeft(asOf)) return asOf
      if (asOf.right) {
        const then = await pageAt(deps.db.pool, workspaceId, params.id, asOf.right.position)
        return then ? E.right({ data: { ...then, asOf: asOf.right } }) : notFound
      }
      const row = await livePage(deps, workspaceId, params.id)
      if (!row) return notFound
      if (!query.version || query.version === row.version)
        return E.right({ data: await pageView(deps.db.pool, row, await verificationOn(deps, workspaceId)) })
      const v = await readVersion(deps.db.pool, workspaceId, row.id, query.version)
      if (!v)
        return fail('NOT_FOUND', `the page has no version ${query.version}`, [
          `version: the page has versions 1 to ${row.version}`,
        ])
      return E.right({ data: { id: row.id, title: row.title, latestVersion: row.version, ...versionView(v, true) } })
    },
  }),
  route({
    method: 'patch',
    path: '/api/v1/pages/:id',
    response: answers.WrittenPage,
    tag: 'pages',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary:
      'Edit a page (content, guarded by expectedVersion) or move it to a collection (collectionId, null for none)',
    params: IdParam,
    body: c.exact({
      content: c.string(1, PAGE_WRITE_MAX),
      expectedVersion: VersionNumber,
      collectionId: t.union([c.id, t.null]),
    }),
    uses: ['db', 'store', 'embedder'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      if (body.content === undefined && body.collectionId === undefined)
        return fail('VALIDATION_ERROR', 'nothing to change', ['(body): give content or collectionId'])
      if (!(await livePage(deps, workspaceId, params.id))) return notFound
      if (body.collectionId && !(await activeCollection(deps.store, workspaceId, body.collectionId)))
        return collectionNotFound()
      let position = 0
      if (body.content !== undefined) {
        const w = await writePage(pageDeps(deps), command, {
          workspaceId,
          pageId: params.id,
          mode: 'replace',
          content: body.content,
          author: humanAuthor(identity),
          expectedVersion: body.expectedVersion,
        })
        if (E.isLeft(w)) return w
        position = w.right.position
      }
      if (body.collectionId !== undefined) {
        const moved = await setPageCollection(deps.store, command, workspaceId, params.id, body.collectionId)
        if (E.isLeft(moved)) return moved
        position = Math.max(position, moved.right.position)
      }
      return pageReply(deps, workspaceId, params.id, position)
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/pages/:id',
    response: answers.Deleted,
    tag: 'pages',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Delete a page and free its title',
    params: IdParam,
    uses: ['store'],
    handler: async ({ params, identity, command }, deps) => {
      const deleted = await deletePage(deps.store, command, memberOf(identity).workspaceId, params.id)
      return E.map(({ position }: { position: number }) => ({ data: { deleted: true, id: params.id }, position }))(
        deleted,
      )
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/pages/:id/verify',
    response: answers.WrittenPage,
    tag: 'pages',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'Verify the page: pin its latest version (verification must be on)',
    params: IdParam,
    uses: ['db', 'store'],
    handler: async ({ params, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      if (!(await verificationOn(deps, workspaceId))) return verificationOff
      const verified = await verifyPage(deps.store, command, workspaceId, params.id, personOf(identity))
      if (E.isLeft(verified)) return verified
      return pageReply(deps, workspaceId, params.id, verified.right.position)
    },
  }),
]
