import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Queryable } from '../../adapters/db'
import type { SearchFilters } from '../../adapters/textIndex/port'
import { readReceipt } from '../../commands/search/receipts'
import { type DomainError, fail } from '../../domain/shared'
import { resolveAsOf } from '../../queries/asOf'
import { getFolder } from '../../queries/knowledge'
import { type Comparison, compareSearches, searchSettings } from '../../queries/search'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { Mode } from '../codecs'
import { type AnyRoute, route } from '../route'
import { searchNotes } from './shapes'
import { READS, type ToolDeps, defineTool } from '../tools/tool'
import { CompareAnswer } from './answers'
import { FILTER_NOTE, filterOf, searchFields } from './filter'

const CompareBody = c.object({ query: c.string(1, 1000), from: c.asOf }, { to: c.asOf, ...searchFields })

type CompareRequest = t.TypeOf<typeof CompareBody>

/** What compare needs of the service (the route's and the tool's services alike). */
type CompareDeps = Pick<ToolDeps, 'db' | 'store' | 'embedder' | 'textIndex' | 'vectors' | 'runner' | 'config'>

const shown = (r: { id: string; title: string; score: number; version: number; chunkIndex: number }, i: number) => ({
  rank: i + 1,
  id: r.id,
  title: r.title,
  score: r.score,
  version: r.version,
  chunkIndex: r.chunkIndex,
})

/**
 * Why did this answer change: one query asked as of two moments (`to` absent: now, the workspace's last event), the
 * entries that entered, left, rose or fell, and the events between the moments behind each. A read: nothing is
 * recorded, no receipt is given.
 */
const compare = async (
  deps: CompareDeps,
  workspaceId: string,
  req: Omit<CompareRequest, 'source' | 'category' | 'tag' | 'filter'>,
  filters: SearchFilters,
): Promise<E.Either<DomainError, t.TypeOf<typeof CompareAnswer>>> => {
  if (filters.folderId && !(await getFolder(deps.db.pool, workspaceId, filters.folderId)))
    return fail('NOT_FOUND', 'folder not found')
  const from = await resolveAsOf(deps, workspaceId, req.from)
  if (E.isLeft(from)) return from
  // Now, where no moment is given: the workspace's last event, the read models waited for.
  const to = await resolveAsOf(deps, workspaceId, req.to ?? { time: new Date() })
  if (E.isLeft(to)) return to
  if (!from.right || !to.right) return fail('VALIDATION_ERROR', 'from and to must name moments')
  if (to.right.position < from.right.position)
    return fail('VALIDATION_ERROR', 'from must not be later than to', ['from: a moment at or before to'])
  const settings = await searchSettings(deps.db.pool, workspaceId, req)
  if (!settings.enabled) return fail('FORBIDDEN', "this workspace's knowledge base is disabled")
  const compared = await compareSearches(
    deps,
    workspaceId,
    { query: req.query, filters },
    settings,
    from.right,
    to.right,
  )
  return E.map((r: Comparison) => ({
    ...r,
    mode: settings.mode,
    before: r.before.map(shown),
    after: r.after.map(shown),
  }))(compared)
}

/** A request's filters as a search reads them. */
const filtersOf = ({ source, category, tag, folderId, filter }: CompareRequest): SearchFilters => ({
  source,
  category,
  tag,
  folderId,
  ...filterOf(filter),
})

/** How a search was asked, as its record in the log keeps it (absent until the record reaches the log). */
const askedOf = async (db: Queryable, workspaceId: string, searchId: string) =>
  (
    await db.query<{
      data: { query: string; askedMode?: t.TypeOf<typeof Mode>; minScore?: number; filters?: SearchFilters }
    }>(`SELECT data FROM audit_events WHERE workspace_id = $1 AND type = 'SearchServed' AND data->>'searchId' = $2`, [
      workspaceId,
      searchId,
    ])
  ).rows[0]?.data

export const compareRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/knowledge/search/compare',
    tag: 'search',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary: 'Compare one search at two moments: what entered, left, rose or fell, and the events that moved it',
    body: CompareBody,
    response: CompareAnswer,
    uses: ['db', 'store', 'embedder', 'textIndex', 'vectors', 'runner', 'config'],
    handler: async ({ body, identity }, deps) =>
      E.map((data: t.TypeOf<typeof CompareAnswer>) => ({ data }))(
        await compare(deps, memberOf(identity).workspaceId, body, filtersOf(body)),
      ),
  }),
  route({
    method: 'get',
    path: '/api/v1/receipts/:id/compare',
    tag: 'search',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary:
      "What a receipt's answer would be now, and why it differs: its search, asked as it was, compared from the " +
      'moment it answered to now',
    params: t.type({ id: c.string(1, 8000) }),
    response: CompareAnswer,
    uses: ['db', 'store', 'embedder', 'textIndex', 'vectors', 'runner', 'config', 'receiptKeys'],
    handler: async ({ identity, params }, deps) => {
      const { workspaceId } = memberOf(identity)
      const receipt = await readReceipt({ ...deps, db: deps.db.pool }, workspaceId, params.id)
      if (!receipt) return fail('NOT_FOUND', 'receipt not found')
      if (receipt.kind !== 'knowledge')
        return fail('VALIDATION_ERROR', 'only an answer of a search of entries can be compared', [
          'id: the receipt of a search of entries (this one is of pages)',
        ])
      const asked = await askedOf(deps.db.pool, workspaceId, receipt.id)
      if (!asked) return fail('CONFLICT', "the search's record has not reached the log yet: ask again in a moment")
      // Asked again as it was: its query, mode, minimum score and filters, from the moment it answered.
      const from = { position: receipt.asOf ?? receipt.position }
      const mode = asked.askedMode ? { mode: asked.askedMode } : {}
      const minScore = asked.minScore !== undefined ? { minScore: asked.minScore } : {}
      return E.map((data: t.TypeOf<typeof CompareAnswer>) => ({ data }))(
        await compare(deps, workspaceId, { query: asked.query, from, ...mode, ...minScore }, asked.filters ?? {}),
      )
    },
  }),
]

export const kbCompare = defineTool({
  name: 'native:kb_compare',
  description:
    "Compare a search of the workspace's knowledge entries at two moments, to explain why an answer changed: " +
    'the entries that entered, left, rose or fell, and the edits, deletions, moves, metadata or settings changes ' +
    'between the moments behind each.',
  permission: 'read:tools',
  annotations: READS,
  arguments: CompareBody,
  argumentNotes: {
    ...searchNotes,
    from: 'The earlier moment: an ISO 8601 time, or pos:<n> (a log position, as a receipt gives it)',
    to: 'The later moment, the same way (default: now)',
    source: 'Only entries of this kind: text, url (web pages), file (uploads), or a legacy kind',
    category: "Only entries whose metadata category is this (as the workspace's entries name it)",
    tag: 'Only entries carrying this tag',
    folderId: 'Only entries in this folder',
    filter: FILTER_NOTE,
  },
  output: CompareAnswer,
  run: async (deps, { workspaceId }, args) =>
    E.map((data: t.TypeOf<typeof CompareAnswer>) => ({ data }))(
      await compare(deps, workspaceId, args, filtersOf(args)),
    ),
})
