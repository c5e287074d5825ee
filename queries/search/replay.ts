import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import type { SearchFilters } from '../../adapters/textIndex/port'
import type { ReplayFigures } from '../../domain/search/replay'
import { DEPTH, mean, ndcgAt, overlapAt, percentile, rankBiasedOverlap } from './agreement'
import type { Mode, RankDeps } from './ranking'
import { findKnowledge, searchSettings } from './search'

// A rebuild's replay: the workspaces' own logged queries asked of the read models in service (live)
// and of the rebuild's new ones (shadow), and how far the answers agree.

/** A query as the log holds it: what was asked, how, and what it served then. */
export interface LoggedQuery {
  workspaceId: string
  query: string
  mode: Mode
  filters: SearchFilters
  minScore: number
  asOf: boolean
  /** Whether the record says how it was asked (filters, minScore): those from before it did are not replayed. */
  asRecorded: boolean
  served: string[]
}

/** A question with graded judgments (the evaluation sets' format): ids name entries, or their external ids. */
export interface Judged {
  query: string
  judgments: Record<string, number>
}

/**
 * The last `n` distinct queries of each workspace's searches over entries (the same text, mode,
 * filters and minScore asked again count once), newest first, from the audit trail.
 */
export const loggedQueries = async (q: Queryable, n: number): Promise<LoggedQuery[]> => {
  const { rows } = await q.query<{ workspace_id: string; data: Record<string, any> }>(
    `SELECT workspace_id, data FROM (
       SELECT workspace_id, data, position, row_number() OVER (PARTITION BY workspace_id ORDER BY position DESC) AS nth
       FROM (SELECT DISTINCT ON (workspace_id, data->>'query', coalesce(data->>'askedMode', data->>'mode'),
               data->'filters', data->'minScore', data ? 'asOf') workspace_id, data, position
             FROM audit_events WHERE type = 'SearchServed' AND data ? 'query'
             ORDER BY workspace_id, data->>'query', coalesce(data->>'askedMode', data->>'mode'), data->'filters',
               data->'minScore', data ? 'asOf', position DESC) latest) numbered
     WHERE nth <= $1 ORDER BY workspace_id, position DESC`,
    [n],
  )
  return rows.map(({ workspace_id, data }) => ({
    workspaceId: workspace_id,
    query: data.query,
    mode: data.askedMode ?? data.mode,
    filters: data.filters ?? {},
    minScore: data.minScore ?? 0,
    asRecorded: data.minScore !== undefined,
    asOf: data.asOf !== undefined,
    served: data.entryIds ?? [],
  }))
}

/**
 * Whether a logged query can be asked again as it was: not of a past moment, every entry it served
 * still there, its folder still there.
 */
const stillAskable = async (q: Queryable, logged: LoggedQuery) => {
  if (logged.asOf || !logged.asRecorded) return false
  const { rows } = await q.query<{ gone: number }>(
    `SELECT (SELECT count(*)::int FROM unnest($1::text[]) AS s(id) WHERE NOT EXISTS (SELECT 1 FROM kb_entries e
       WHERE e.id = s.id)) + (CASE WHEN $2::text IS NULL OR EXISTS (SELECT 1 FROM kb_folders WHERE id = $2) THEN 0
       ELSE 1 END) AS gone`,
    [logged.served, logged.filters.folderId ?? null],
  )
  return rows[0].gone === 0
}

interface Answer {
  ids: string[]
  titles: string[]
  ms: number
}

/** One query asked of one side: its top 10 (minScore as logged), and how long it took. */
const ask = async (
  deps: RankDeps,
  workspaceId: string,
  asked: { query: string; mode?: Mode; filters: SearchFilters; minScore: number },
): Promise<Answer | undefined> => {
  const t0 = performance.now()
  const settings = await searchSettings(deps.db.pool, workspaceId, { ...asked, limit: DEPTH })
  const found = await findKnowledge(deps, workspaceId, asked, settings)
  if (E.isLeft(found)) return undefined
  const { results } = found.right
  return { ids: results.map((r) => r.id), titles: results.map((r) => r.title), ms: performance.now() - t0 }
}

/** A query asked of both sides, the side that goes first taking turns (neither always finds the cache warm). */
const askBoth = async (
  live: RankDeps,
  shadow: RankDeps,
  workspaceId: string,
  asked: Parameters<typeof ask>[2],
  n: number,
) => {
  const [first, second] = n % 2 === 0 ? [live, shadow] : [shadow, live]
  const a = await ask(first, workspaceId, asked)
  const b = a && (await ask(second, workspaceId, asked))
  if (!a || !b) return undefined
  return n % 2 === 0 ? { live: a, shadow: b } : { live: b, shadow: a }
}

export interface Compared {
  workspaceId: string
  query: string
  mode: Mode
  overlap: number
  rbo: number
  lostFirst: boolean
  emptyNow: boolean
  live: Answer
  shadow: Answer
}

const latencyOf = (ms: number[]) => ({ p50: percentile(ms, 50), p95: percentile(ms, 95) })

/** Figures over some compared queries (and judged questions' nDCG@10 on each side, where any). */
export const figuresOf = (compared: Compared[], judged: Array<{ live: number; shadow: number }>): ReplayFigures => ({
  queries: compared.length,
  // With nothing compared, nothing disagrees.
  overlap: compared.length ? mean(compared.map((c) => c.overlap)) : 1,
  rbo: compared.length ? mean(compared.map((c) => c.rbo)) : 1,
  lostFirst: compared.filter((c) => c.lostFirst).length,
  emptyNow: compared.filter((c) => c.emptyNow).length,
  latency: {
    live: latencyOf(compared.map((c) => c.live.ms)),
    shadow: latencyOf(compared.map((c) => c.shadow.ms)),
  },
  ...(judged.length
    ? {
        judged: {
          questions: judged.length,
          live: mean(judged.map((j) => j.live)),
          shadow: mean(judged.map((j) => j.shadow)),
        },
      }
    : {}),
})

/**
 * Asks each logged query of both sides and compares the two top 10s. A query no longer askable,
 * or that one side refuses (a knowledge base disabled since), is skipped.
 */
export const compareQueries = async (live: RankDeps, shadow: RankDeps, logged: LoggedQuery[]) => {
  const compared: Compared[] = []
  let skipped = 0
  for (const [n, l] of logged.entries()) {
    const both = (await stillAskable(live.db.pool, l)) ? await askBoth(live, shadow, l.workspaceId, l, n) : undefined
    if (!both) {
      skipped++
      continue
    }
    const [a, b] = [both.live.ids, both.shadow.ids]
    compared.push({
      workspaceId: l.workspaceId,
      query: l.query,
      mode: l.mode,
      overlap: overlapAt(a, b),
      rbo: rankBiasedOverlap(a, b),
      lostFirst: a.length > 0 && a[0] !== b[0],
      emptyNow: a.length > 0 && b.length === 0,
      ...both,
    })
  }
  return { compared, skipped }
}

/** Entries a judged id names (the ids are parameter `$n`): by their id, or by a value of their external ids. */
const judged = (n: number) =>
  `(id = ANY($${n}::text[]) OR EXISTS (SELECT 1 FROM jsonb_each_text(external_refs) r
     WHERE r.value = ANY($${n}::text[])))`

const judgedKeys = (questions: Judged[]) => [...new Set(questions.flatMap((q) => Object.keys(q.judgments)))]

/** The workspaces holding entries that judged ids name (asked even where nothing was logged). */
export const judgedWorkspaces = async (q: Queryable, questions: Judged[]) => {
  const { rows } = await q.query<{ workspace_id: string }>(
    `SELECT DISTINCT workspace_id FROM kb_entries WHERE ${judged(1)}`,
    [judgedKeys(questions)],
  )
  return rows.map((r) => r.workspace_id)
}

/**
 * Judged questions asked of both sides in a workspace (the workspace's mode, minScore 0), with each
 * side's nDCG@10: a question counts where one of its judged ids names an entry of the workspace.
 */
export const judgeBoth = async (live: RankDeps, shadow: RankDeps, workspaceId: string, questions: Judged[]) => {
  const { rows } = await live.db.pool.query<{ id: string; refs: Record<string, string> }>(
    `SELECT id, external_refs AS refs FROM kb_entries WHERE workspace_id = $1 AND ${judged(2)}`,
    [workspaceId, judgedKeys(questions)],
  )
  const entryOf = new Map<string, string>()
  for (const r of rows) for (const key of [r.id, ...Object.values(r.refs)]) entryOf.set(key, r.id)
  const scores: Array<{ live: number; shadow: number }> = []
  for (const [n, q] of questions.entries()) {
    const judgments: Record<string, number> = {}
    for (const [key, grade] of Object.entries(q.judgments)) {
      const id = entryOf.get(key)
      if (id) judgments[id] = Math.max(judgments[id] ?? 0, grade)
    }
    if (!Object.values(judgments).some((g) => g > 0)) continue
    const both = await askBoth(live, shadow, workspaceId, { query: q.query, filters: {}, minScore: 0 }, n)
    if (both) scores.push({ live: ndcgAt(both.live.ids, judgments), shadow: ndcgAt(both.shadow.ids, judgments) })
  }
  return scores
}
