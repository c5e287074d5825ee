import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { changeSize, unifiedDiff } from '../../adapters/diff'
import { pageDeps, revertPage } from '../../commands/pages/pages'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { listVersions, readVersion, versionView } from '../../queries/pages/pages'
import {
  VersionNumber,
  IdParam,
  VersionFromString,
  humanAuthor,
  livePage,
  notFound,
  pageReply,
  verificationOn,
} from './shapes'
import * as answers from './answers'

/** A page's history: its versions, one version, a diff between two, and a revert to one. */
export const pageVersionRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/pages/:id/versions',
    response: answers.Versions,
    tag: 'pages',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "A page's versions, newest first",
    params: IdParam,
    uses: ['db'],
    handler: async ({ params, identity }, deps) => {
      const row = await livePage(deps, memberOf(identity).workspaceId, params.id)
      if (!row) return notFound
      return E.right({
        data: {
          pageId: row.id,
          title: row.title,
          version: row.version,
          versions: await listVersions(deps.db.pool, row.id),
        },
      })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/pages/:id/versions/:version',
    response: answers.VersionRead,
    tag: 'pages',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'One version with its content',
    params: t.type({ id: c.id, version: VersionFromString }),
    uses: ['db'],
    handler: async ({ params, identity }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const row = await livePage(deps, workspaceId, params.id)
      const v = row && (await readVersion(deps.db.pool, workspaceId, params.id, params.version))
      if (!v)
        return row
          ? fail('NOT_FOUND', `the page has no version ${params.version}`, [
              `version: the page has versions 1 to ${row.version}`,
            ])
          : notFound
      return E.right({ data: { id: row.id, title: row.title, latestVersion: row.version, ...versionView(v, true) } })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/pages/:id/diff',
    response: answers.Diff,
    tag: 'pages',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary:
      'Unified diff between two versions; from defaults to the verified pin (else the previous version), to to the ' +
      'latest',
    params: IdParam,
    query: c.exact({ from: VersionFromString, to: VersionFromString }),
    uses: ['db', 'store'],
    handler: async ({ params, query, identity }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const row = await livePage(deps, workspaceId, params.id)
      if (!row) return notFound
      const to = query.to ?? row.version
      const from =
        query.from ??
        ((await verificationOn(deps, workspaceId)) && row.verified_version ? row.verified_version : Math.max(1, to - 1))
      const [a, b] = await Promise.all([
        readVersion(deps.db.pool, workspaceId, row.id, from),
        readVersion(deps.db.pool, workspaceId, row.id, to),
      ])
      const missing = [
        ...(a ? [] : [`from: the page has versions 1 to ${row.version}`]),
        ...(b ? [] : [`to: the page has versions 1 to ${row.version}`]),
      ]
      if (!a || !b) return fail('VALIDATION_ERROR', 'no such version', missing)
      return E.right({
        data: {
          pageId: row.id,
          from,
          to,
          change: changeSize(a.content, b.content),
          diff: unifiedDiff(a.content, b.content, `${row.title} v${from}`, `${row.title} v${to}`),
        },
      })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/pages/:id/revert',
    response: answers.WrittenPage,
    tag: 'pages',
    auth: 'bearer',
    permission: 'write:knowledge',
    summary: 'A new version restoring the content of { version }; the history is untouched',
    params: IdParam,
    body: c.object({ version: VersionNumber }, { expectedVersion: VersionNumber }),
    uses: ['db', 'store', 'embedder'],
    handler: async ({ params, body, identity, command }, deps) => {
      const workspaceId = memberOf(identity).workspaceId
      const reverted = await revertPage(
        pageDeps(deps),
        command,
        workspaceId,
        params.id,
        body.version,
        humanAuthor(identity),
        body.expectedVersion,
      )
      if (E.isLeft(reverted)) return reverted
      return pageReply(deps, workspaceId, params.id, reverted.right.position)
    },
  }),
]
