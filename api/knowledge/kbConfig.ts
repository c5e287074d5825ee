import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { changeKbConfig } from '../../commands/knowledge/kbConfig'
import { MAX_FILE_SIZE, SUPPORTED_FILE_TYPES } from '../../domain/knowledge/kbConfig'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, readBack, route } from '../route'
import { configView, stats } from '../../queries/knowledge/statistics'
import * as answers from './answers'

const FileType = t.keyof(
  Object.fromEntries(SUPPORTED_FILE_TYPES.map((m) => [m, null])) as Record<(typeof SUPPORTED_FILE_TYPES)[number], null>,
)

const ConfigPatch = c.exact({
  enabled: t.boolean,
  maxDocuments: c.integer(1, 1_000_000),
  retentionDays: c.integer(0, 36_500),
  freshnessDays: c.integer(1, 36_500),
  maxFileSize: c.integer(1, MAX_FILE_SIZE),
  allowedFileTypes: c.arrayOf(FileType, SUPPORTED_FILE_TYPES.length),
  ingestion: c.exact({ chunkSize: c.integer(100, 2000), chunkOverlap: c.integer(0, 500), autoEmbed: t.boolean }),
  search: c.exact({
    defaultMode: c.Mode,
    defaultLimit: c.integer(1, 50),
    minScore: c.number(0, 1),
    fusion: t.keyof({ score: null, rrf: null }),
    rerank: c.exact({ enabled: t.boolean, model: c.string(1, 200), candidates: c.integer(20, 50) }),
  }),
  verification: c.exact({ enabled: t.boolean }),
})

/** Configuration and statistics; changing the configuration is for owners and admins. */
export const kbConfigRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/knowledge/config',
    response: answers.Config,
    tag: 'config',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "The workspace's knowledge-base configuration",
    uses: ['db'],
    handler: async ({ identity }, { db }) =>
      E.right({ data: await configView(db.pool, memberOf(identity).workspaceId) }),
  }),
  route({
    method: 'patch',
    path: '/api/v1/knowledge/config',
    response: answers.Config,
    tag: 'config',
    auth: 'bearer',
    permission: 'write:knowledge',
    managers: 'changing the configuration is for workspace owners and admins',
    summary: 'Change any subset of the configuration; answers the full configuration',
    body: ConfigPatch,
    uses: ['db', 'store'],
    handler: async ({ body, identity, command }, deps) => {
      const user = memberOf(identity)
      const changed = await changeKbConfig(deps.store, command, user.workspaceId, body)
      if (E.isLeft(changed)) return changed
      return readBack(changed.right.position, () => configView(deps.db.pool, user.workspaceId, changed.right.config))
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/knowledge/stats',
    response: answers.Stats,
    tag: 'config',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: "The workspace's knowledge-base statistics",
    uses: ['db'],
    handler: async ({ identity }, { db }) => E.right({ data: await stats(db.pool, memberOf(identity).workspaceId) }),
  }),
]
