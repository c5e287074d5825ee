import * as E from 'fp-ts/Either'
import { type Actor, shownActor } from '../../adapters/eventstore/port'
import type { DomainError } from '../../domain/shared'
import { type AsOf, entryTombstones } from '../asOf'
import type { RankDeps } from './ranking'
import { type SearchRequest, type SearchResult, type SearchSettings, findKnowledge } from './search'

// Why did this answer change? One query asked of the knowledge base as it stood at two moments, each entry that
// entered, left, rose or fell between the answers, and the events between the moments that moved it: read from
// the workspace's audit trail, so the answer is the log's own account.

/** What an event did to an entry's place in a search (or, for the workspace's, to every search). */
export type Cause =
  | 'created'
  | 'edited'
  | 'retitled'
  | 'reprocessed'
  | 'metadata'
  | 'disabled'
  | 'enabled'
  | 'moved'
  | 'deleted'
  | 're-embedded'
  | 'settings'

/** The causes an event of the audit trail stands for (none: it changes nothing a search reads). */
export const causesOf = (type: string, data: Record<string, unknown>): Cause[] => {
  const changes = (data.changes ?? {}) as Record<string, unknown>
  switch (type) {
    case 'EntryCreated':
      return ['created']
    case 'EntryUpdated':
      return [
        ...(changes.content !== undefined ? (['edited'] as const) : []),
        ...(changes.title !== undefined ? (['retitled'] as const) : []),
        ...(changes.metadata !== undefined ? (['metadata'] as const) : []),
        ...(changes.isEnabled === false ? (['disabled'] as const) : []),
        ...(changes.isEnabled === true ? (['enabled'] as const) : []),
      ]
    case 'EntryContentProcessed':
      return ['reprocessed']
    case 'EntryMetadataReplaced':
      return ['metadata']
    case 'EntryMoved':
      return ['moved']
    case 'EntryDeleted':
      return ['deleted']
    case 'EmbeddingsRebuilt':
      return ['re-embedded']
    case 'KbConfigChanged':
      return changes.search !== undefined ? ['settings'] : []
    default:
      return []
  }
}

/** The events that touch searches: an entry's own, and the workspace's re-embeddings and settings. */
const ENTRY_EVENTS = [
  'EntryCreated',
  'EntryUpdated',
  'EntryContentProcessed',
  'EntryMetadataReplaced',
  'EntryMoved',
  'EntryDeleted',
]
const WORKSPACE_EVENTS = ['EmbeddingsRebuilt', 'KbConfigChanged']

export interface Because {
  causes: Cause[]
  type: string
  position: number
  time: string
  actor: Actor
}

export interface Placed {
  rank: number
  score: number
  version: number
}

export interface Moved {
  id: string
  title: string
  movement: 'entered' | 'left' | 'rose' | 'fell'
  before: Placed | null
  after: Placed | null
  because: Because[]
}

export interface Comparison {
  from: AsOf
  to: AsOf
  before: SearchResult[]
  after: SearchResult[]
  moved: Moved[]
  /** What changed every search of the workspace between the moments: its search settings, a re-embedding. */
  workspace: Because[]
  /**
   * Entries that stood at `from` and were deleted by `to`: their content is cut, so no answer of any moment serves
   * them, and whether they answered then is not shown; at most DELETED_SHOWN, the latest first.
   */
  deleted: { id: string; title: string | null; position: number; time: string }[]
}

const DELETED_SHOWN = 100

const placed = (results: SearchResult[]) =>
  new Map(results.map((r, i) => [r.id, { rank: i + 1, score: r.score, version: r.version, title: r.title }]))

/** The query asked as of `from` and as of `to`, and how the answers differ, with the events behind each difference. */
export const compareSearches = async (
  deps: RankDeps,
  workspaceId: string,
  req: Pick<SearchRequest, 'query' | 'filters'>,
  settings: SearchSettings,
  from: AsOf,
  to: AsOf,
): Promise<E.Either<DomainError, Comparison>> => {
  const then = await findKnowledge(deps, workspaceId, { ...req, asOf: from }, settings)
  if (E.isLeft(then)) return then
  const now = await findKnowledge(deps, workspaceId, { ...req, asOf: to }, settings)
  if (E.isLeft(now)) return now
  const end = to
  const [a, b] = [placed(then.right.results), placed(now.right.results)]
  const ids = [...new Set([...a.keys(), ...b.keys()])]
  const { rows } = await deps.db.pool.query<{
    position: string
    type: string
    data: Record<string, unknown>
    actor: Actor
    time: Date
  }>(
    `SELECT position, type, data, actor, time FROM audit_events
     WHERE workspace_id = $1 AND position > $2 AND position <= $3
       AND ((type = ANY($4::text[]) AND data->>'entryId' = ANY($5::text[])) OR type = ANY($6::text[]))
     ORDER BY position`,
    [workspaceId, from.position, end.position, ENTRY_EVENTS, ids, WORKSPACE_EVENTS],
  )
  const events = rows.flatMap((r) => {
    const causes = causesOf(r.type, r.data)
    if (causes.length === 0) return []
    const because = {
      causes,
      type: r.type,
      position: Number(r.position),
      time: r.time.toISOString(),
      actor: shownActor(r.actor),
    }
    return [{ entryId: r.data.entryId as string | undefined, because }]
  })
  const moved: Moved[] = ids.flatMap((id) => {
    const [x, y] = [a.get(id), b.get(id)]
    const movement = !x ? 'entered' : !y ? 'left' : y.rank < x.rank ? 'rose' : y.rank > x.rank ? 'fell' : undefined
    if (!movement) return []
    const place = (p: typeof x) => (p ? { rank: p.rank, score: p.score, version: p.version } : null)
    return [
      {
        id,
        title: (y ?? x)!.title,
        movement,
        before: place(x),
        after: place(y),
        because: events.filter((e) => e.entryId === id).map((e) => e.because),
      },
    ]
  })
  const deleted = (await entryTombstones(deps.db.pool, workspaceId, from.position))
    .filter((d) => d.deleted.position <= end.position)
    .slice(0, DELETED_SHOWN)
    .map((d) => ({ id: d.id, title: d.title, position: d.deleted.position, time: d.deleted.at }))
  return E.right({
    from,
    to: end,
    before: then.right.results,
    after: now.right.results,
    moved,
    workspace: events.filter((e) => e.entryId === undefined).map((e) => e.because),
    deleted,
  })
}
