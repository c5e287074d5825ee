import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Queryable } from '../../adapters/db'
import { namesTwoPages, writeBrainPage } from '../../commands/brain'
import { nameKey } from '../../commands/reservations'
import { loadKbConfig } from '../../commands/kbConfig'
import { searchPages } from '../../commands/pageSearch'
import { fail } from '../../domain/shared'
import * as c from '../codecs'
import { Mode } from '../routes/search'
import { SkillName } from '../skills'
import {
  listVersions,
  pageView,
  readPage,
  readPageByTitle,
  readProposal,
  readVersion,
  versionView,
} from '../../queries/pages'
import { inputSchemaOf } from '../openapi'
import type { Tool } from './tool'

export const PAGE_TITLE_MAX = 500
export const PAGE_WRITE_MAX = 100_000
/** A page version number as a client names it. */
export const VersionNumber = c.integer(1, 2 ** 31 - 1)
const ref = { pageId: c.id, title: c.line(1, PAGE_TITLE_MAX) }
const refNotes = { pageId: { description: 'The page id' }, title: { description: 'The page title (case-insensitive)' } }
const noRef = fail('VALIDATION_ERROR', 'name the page by pageId or title', ['arguments: give pageId or title'])

/**
 * The live page a read names by id or title (case-insensitively), in the workspace; a pageId and a title of two pages
 * are refused.
 */
export const findPage = async (db: Queryable, workspaceId: string, r: { pageId?: string; title?: string }) => {
  if (!r.pageId && !r.title) return noRef
  const row = r.pageId ? await readPage(db, workspaceId, r.pageId) : await readPageByTitle(db, workspaceId, r.title!)
  if (!row) return fail('NOT_FOUND', 'page not found')
  if (r.pageId && r.title !== undefined && nameKey(r.title) !== nameKey(row.title)) return namesTwoPages(row.title)
  return E.right(row)
}

const PageWriteArguments = c.object(
  { content: c.string(1, PAGE_WRITE_MAX) },
  {
    ...ref,
    mode: t.keyof({ create: null, append: null, replace: null }),
    expectedVersion: VersionNumber,
    collectionId: c.id,
    skill: SkillName,
  },
)

const pageWrite: Tool = {
  name: 'native:page_write',
  description:
    'Write a brain page by title or pageId. mode "create" (fails if the title exists), "append" (default; creates ' +
    'the page if missing) or "replace"; expectedVersion guards replace and append. Every write appends a ' +
    'version; the receipt names it and how to revert. Writes into a collection held for review become proposals.',
  permission: 'write:tools',
  arguments: PageWriteArguments,
  inputSchema: inputSchemaOf(PageWriteArguments, {
    ...refNotes,
    mode: { default: 'append' },
    expectedVersion: { description: 'The version you read; a stale one fails with VERSION_CONFLICT' },
    collectionId: { description: 'The collection of a page this write creates' },
    skill: { description: 'The skill you write under' },
  }),
  run: async (deps, { workspaceId, client, command }, args) => {
    if (!args.pageId && !args.title) return noRef
    const author = { kind: 'agent' as const, client, ...(args.skill ? { skill: args.skill } : {}) }
    const written = await writeBrainPage(
      deps.store,
      { ...command, actor: author },
      {
        workspaceId,
        author,
        mode: args.mode ?? 'append',
        content: args.content,
        title: args.title,
        pageId: args.pageId,
        expectedVersion: args.expectedVersion,
        collectionId: args.collectionId,
      },
    )
    return E.map(({ position, ...data }: { position: number }) => ({ data, position }))(written)
  },
}

const PageReadArguments = c.exact({ ...ref, version: VersionNumber })

const pageRead: Tool = {
  name: 'native:page_read',
  description: 'Read a brain page by title or pageId: its latest version, or the version given',
  permission: 'read:tools',
  arguments: PageReadArguments,
  inputSchema: inputSchemaOf(PageReadArguments, refNotes),
  run: async (deps, { workspaceId }, args) => {
    const found = await findPage(deps.db.pool, workspaceId, args)
    if (E.isLeft(found)) return found
    const row = found.right
    const { verification } = await loadKbConfig(deps.store, workspaceId)
    const view = await pageView(deps.db.pool, row, verification.enabled)
    if (!args.version || args.version === row.version) return E.right({ data: view })
    const v = await readVersion(deps.db.pool, workspaceId, row.id, args.version)
    if (!v)
      return fail('NOT_FOUND', `the page has no version ${args.version}`, [
        `version: the page has versions 1 to ${row.version}`,
      ])
    return E.right({ data: { id: row.id, title: row.title, latestVersion: row.version, ...versionView(v, true) } })
  },
}

const PageHistoryArguments = c.exact(ref)

const pageHistory: Tool = {
  name: 'native:page_history',
  description: 'The versions of a brain page, newest first: author, time, size of change, approver',
  permission: 'read:tools',
  arguments: PageHistoryArguments,
  inputSchema: inputSchemaOf(PageHistoryArguments, refNotes),
  run: async (deps, { workspaceId }, args) => {
    const found = await findPage(deps.db.pool, workspaceId, args)
    if (E.isLeft(found)) return found
    const row = found.right
    return E.right({
      data: {
        pageId: row.id,
        title: row.title,
        version: row.version,
        versions: await listVersions(deps.db.pool, row.id),
      },
    })
  },
}

export const pageSearchArguments = c.object(
  { query: c.string(1, 1000) },
  { mode: Mode, limit: c.integer(1, 50), minScore: c.number(0, 1) },
)
export const pageSearchSchema = inputSchemaOf(pageSearchArguments)

const pageSearch: Tool = {
  name: 'native:page_search',
  searches: true,
  description:
    'Search the brain pages (BM25, vector or hybrid; defaults from the workspace search settings). Each result ' +
    'carries its citation "<title> · v<version>": cite it.',
  permission: 'read:tools',
  arguments: pageSearchArguments,
  inputSchema: pageSearchSchema,
  run: async (deps, { workspaceId, command }, args) => {
    const { search } = await loadKbConfig(deps.store, workspaceId)
    const found = await searchPages(
      deps,
      command,
      { kind: 'workspace', workspaceId },
      {
        query: args.query,
        mode: args.mode ?? search.defaultMode,
        limit: args.limit ?? search.defaultLimit,
        minScore: args.minScore ?? search.minScore,
      },
    )
    return E.right({ data: found })
  },
}

const ProposalStatusArguments = c.object({ proposalId: c.id }, {})

const proposalStatus: Tool = {
  name: 'native:kb_proposal_status',
  description: 'The status of a held write (a proposal): pending, approved (with the version it became) or rejected',
  permission: 'read:tools',
  arguments: ProposalStatusArguments,
  inputSchema: inputSchemaOf(ProposalStatusArguments),
  run: async (deps, { workspaceId }, args) => {
    const r = await readProposal(deps.db.pool, workspaceId, args.proposalId)
    if (!r) return fail('NOT_FOUND', 'proposal not found')
    return E.right({
      data: {
        proposalId: r.id,
        status: r.status,
        pageId: r.page_id,
        pageTitle: r.title,
        ...(r.version ? { version: r.version } : {}),
        ...(r.decided_at ? { decidedAt: r.decided_at.toISOString() } : {}),
        ...(r.reason ? { reason: r.reason } : {}),
      },
    })
  },
}

export const pageTools: Tool[] = [pageWrite, pageRead, pageSearch, pageHistory, proposalStatus]
