import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Queryable } from '../../adapters/db'
import { type PageWriteOutcome, namesTwoPages, writePageByMode } from '../../commands/pages/writes'
import { nameKey } from '../../commands/reservations'
import { loadKbConfig } from '../../commands/knowledge'
import { fail } from '../../domain/shared'
import * as c from '../codecs'
import { SkillName } from '../skills'
import { listVersions, readPage, readPageByTitle, readVersion, stateOf } from '../../queries/pages/pages'
import { rangeArguments, rangeFields, rangeNotes, rangeOptional, readRange } from '../tools/ranges'
import { READS, defineTool } from '../tools/tool'
import { pageDeps } from '../../commands/pages/pages'
import { PAGE_TITLE_MAX, PAGE_WRITE_MAX, VersionNumber } from './shapes'

const ref = { pageId: c.id, title: c.line(1, PAGE_TITLE_MAX) }
const refNotes = {
  pageId: 'The page id (as page_search or a receipt gave it)',
  title: 'The page title, in any case; give pageId or title',
}
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

const d = c.described

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

export const Undo = c.object(
  {
    tool: d(t.keyof({ page_delete: null, page_revert: null }), 'The tool that takes this write back'),
    arguments: d(t.record(t.string, t.union([t.string, t.number])), 'Its arguments, ready to pass'),
  },
  {},
)

export const PageWritten = c.object(
  {
    held: d(t.boolean, 'true: held for review as a proposal, the page unchanged; false: written'),
    pageId: d(t.string, 'The page id'),
    title: d(t.string, 'The page title'),
    receipt: d(t.string, 'What happened, in a sentence to quote to the user, with the undo call'),
  },
  {
    version: d(t.number, 'The version written (when not held)'),
    undo: d(Undo, 'The tool call that takes the write back, with your own key (when not held)'),
    proposalId: d(t.string, 'The proposal holding the change (when held): kb_proposal_status follows it'),
    status: d(t.literal('pending'), 'The proposal status (when held)'),
  },
)

const pageWrite = defineTool({
  name: 'native:page_write',
  description:
    'Write to a brain page (the team wiki): create it, append to it, or replace its content. Every write is a ' +
    'new version; the answer is a receipt with the undo call. In a collection held for review it becomes a proposal.',
  permission: 'write:tools',
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  arguments: PageWriteArguments,
  argumentNotes: {
    ...refNotes,
    content: 'Markdown: the whole page (create, replace) or what to add at its end (append); up to 100,000 characters',
    mode: 'append (default: adds to the end, creating a missing page), create (fails if the title exists), or replace',
    expectedVersion: 'The version you read: a newer one fails with VERSION_CONFLICT instead of overwriting it',
    collectionId: 'The collection a page this write creates goes into',
    skill: 'The skill you write under (one of the five served as prompts)',
  },
  output: PageWritten,
  run: async (deps, { workspaceId, client, keyId, command }, args) => {
    if (!args.pageId && !args.title) return noRef
    const author = { kind: 'agent' as const, client, keyId, ...(args.skill ? { skill: args.skill } : {}) }
    const written = await writePageByMode(
      pageDeps(deps),
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
    return E.map(({ position, ...data }: PageWriteOutcome & { position: number }) => ({ data, position }))(written)
  },
})

const PageReadArguments = c.exact({ ...ref, version: VersionNumber, ...rangeArguments })

const PageRead = c.object(
  {
    id: d(t.string, 'The page id'),
    title: d(t.string, 'The page title'),
    version: d(t.number, 'The version read'),
    latestVersion: d(t.number, 'The latest version (pass it as expectedVersion when you write)'),
    citation: d(t.string, 'How to cite it to the user: "<title> · v<version>"'),
    ...rangeFields,
  },
  {
    ...rangeOptional,
    collectionId: d(t.string, 'The collection it belongs to'),
    verification: d(
      t.string,
      'unverified, verified, or changed_since_verified (only where the workspace verifies pages)',
    ),
  },
)

const pageRead = defineTool({
  name: 'native:page_read',
  description:
    'Read a brain page by title or id: its latest version (or the version asked), a section or a range of a long ' +
    'one. Returns the content with the version to cite and to pass when you write.',
  permission: 'read:tools',
  annotations: READS,
  arguments: PageReadArguments,
  argumentNotes: { ...refNotes, version: 'An earlier version to read (default: the latest)', ...rangeNotes },
  output: PageRead,
  run: async (deps, { workspaceId }, args) => {
    const found = await findPage(deps.db.pool, workspaceId, args)
    if (E.isLeft(found)) return found
    const row = found.right
    let content = row.content
    if (args.version && args.version !== row.version) {
      const v = await readVersion(deps.db.pool, workspaceId, row.id, args.version)
      if (!v)
        return fail('NOT_FOUND', `the page has no version ${args.version}`, [
          `version: the page has versions 1 to ${row.version}`,
        ])
      content = v.content
    }
    const part = readRange(content, args)
    if (E.isLeft(part)) return fail('VALIDATION_ERROR', 'the section is not in this page', [part.left])
    const { verification } = await loadKbConfig(deps.store, workspaceId)
    const version = args.version ?? row.version
    return E.right({
      data: {
        id: row.id,
        title: row.title,
        version,
        latestVersion: row.version,
        citation: `${row.title} · v${version}`,
        ...part.right,
        ...(row.collection_id ? { collectionId: row.collection_id } : {}),
        ...(verification.enabled ? { verification: stateOf(row) } : {}),
      },
      served: [{ kind: 'page', id: row.id, version, title: row.title }],
    })
  },
})

const PageHistoryArguments = c.exact(ref)

const Version = c.object(
  {
    version: d(t.number, 'The version number'),
    mode: d(t.string, 'How it was written: create, append, replace or revert'),
    author: d(t.UnknownRecord, 'Who wrote it: a person { kind, userId, name } or an agent { kind, client, skill }'),
    createdAt: d(t.string, 'When (ISO 8601)'),
    change: d(c.object({ added: d(t.number, 'Lines added'), removed: d(t.number, 'Lines removed') }), 'Size of change'),
  },
  {
    approvedBy: d(t.UnknownRecord, 'The person who approved it in review'),
    proposalId: d(t.string, 'The proposal it was published from (approved in review)'),
    revertedFrom: d(t.number, 'The version a revert restored'),
  },
)

const PageHistory = c.object({
  pageId: d(t.string, 'The page id'),
  title: d(t.string, 'The page title'),
  version: d(t.number, 'The latest version'),
  versions: d(t.array(Version), 'Newest first'),
})

const pageHistory = defineTool({
  name: 'native:page_history',
  description:
    'List the versions of a brain page, newest first: who wrote each (person or agent), when, and the size of ' +
    'the change. Use it before page_revert, or to see what changed since you last read.',
  permission: 'read:tools',
  annotations: READS,
  arguments: PageHistoryArguments,
  argumentNotes: refNotes,
  output: PageHistory,
  run: async (deps, { workspaceId }, args) => {
    const found = await findPage(deps.db.pool, workspaceId, args)
    if (E.isLeft(found)) return found
    const row = found.right
    return E.right({
      data: {
        pageId: row.id,
        title: row.title,
        version: row.version,
        versions: (await listVersions(deps.db.pool, row.id)) as t.TypeOf<typeof Version>[],
      },
    })
  },
})

export const pageTools = [pageWrite, pageRead, pageHistory]
