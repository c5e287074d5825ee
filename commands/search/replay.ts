import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Logger } from 'pino'
import type { EventStore } from '../../adapters/eventstore/port'
import { type RebuildReplayed } from '../../domain/search/replay'
import type { Projector } from '../../projections/projector'
import {
  type RebuildReport,
  type Shadow,
  buildShadow,
  catchUpShadow,
  dropShadow,
  swapIn,
} from '../../projections/rebuild'
import {
  type Compared,
  type Judged,
  type RankDeps,
  compareQueries,
  figuresOf,
  judgeBoth,
  judgedWorkspaces,
  loggedQueries,
} from '../../queries/search'
import { type CommandContext } from '../handle'
import { rebuilds } from './aggregates'

/** Distinct logged queries of each workspace replayed unless told, and at most. */
export const DEFAULT_REPLAYED = 200
export const MAX_REPLAYED = 10_000
/** The share of queries that may lose their first result unless told. */
export const DEFAULT_MAX_LOST = 0.1

export interface ReplayOptions {
  /** How many distinct logged queries of each workspace to replay. */
  queries: number
  /** The share of queries that may lose their first result before the cut-over is refused. */
  maxLost: number
  force: boolean
  judgments?: Judged[]
}

export interface ReplayDeps extends RankDeps {
  store: EventStore
  log: Logger
}

/** The queries that changed most, side by side: only operators see them (the event keeps figures alone). */
const CHANGED_SHOWN = 10

const sideBySide = (c: Compared) => ({
  workspaceId: c.workspaceId,
  query: c.query,
  mode: c.mode,
  overlap: c.overlap,
  rbo: c.rbo,
  live: c.live.ids.map((id, i) => ({ id, title: c.live.titles[i] })),
  shadow: c.shadow.ids.map((id, i) => ({ id, title: c.shadow.titles[i] })),
})

export type ReplayReport = RebuildReplayed['data'] & { changed: Array<ReturnType<typeof sideBySide>> }

/**
 * A rebuild that proves itself before it cuts over: the projectors' new tables are built beside
 * those in service, each workspace's last logged queries (and judged questions, if given) are asked
 * of both, and the verdict, recorded as a RebuildReplayed event, decides whether the new tables go
 * into service or are dropped.
 */
export const rebuildWithReplay = async (
  deps: ReplayDeps,
  selected: Projector[],
  options: ReplayOptions,
  ctx: CommandContext,
): Promise<{ rebuilt: RebuildReport[]; replay: ReplayReport }> => {
  const { db, store, log } = deps
  const shadows: Shadow[] = []
  try {
    for (const p of selected) shadows.push(await buildShadow(db, store, p, log))
    // Each of them as far as the log goes now, as the tables in service are: the first one built is not behind.
    for (const s of shadows) await catchUpShadow(db, store, s, log)
    const shadow = { ...deps, readFrom: shadows.map((s) => s.schema) }
    const { compared, skipped } = await compareQueries(deps, shadow, await loggedQueries(db.pool, options.queries))
    const judgedIn = options.judgments ? await judgedWorkspaces(db.pool, options.judgments) : []
    const workspaceIds = [...new Set([...compared.map((c) => c.workspaceId), ...judgedIn])].sort()
    const workspaces = []
    const judgedAll = []
    for (const workspaceId of workspaceIds) {
      const judged = options.judgments ? await judgeBoth(deps, shadow, workspaceId, options.judgments) : []
      judgedAll.push(...judged)
      const mine = compared.filter((c) => c.workspaceId === workspaceId)
      workspaces.push({ workspaceId, ...figuresOf(mine, judged) })
    }
    const rebuildId = randomUUID()
    const data = {
      rebuildId,
      projections: selected.map((p) => p.name),
      maxLost: options.maxLost,
      skipped,
      overall: figuresOf(compared, judgedAll),
      workspaces,
    }
    const recorded = await rebuilds
      .on(store, rebuildId)
      .handle({ type: 'RecordReplay', data: { ...data, force: options.force } }, ctx)
    if (E.isLeft(recorded)) throw new Error(`the replay's verdict was not recorded: ${recorded.left.message}`)
    const { verdict } = recorded.right.events[0].data
    const changed = compared
      .filter((c) => c.rbo < 1)
      .sort((a, b) => a.rbo - b.rbo || a.overlap - b.overlap)
      .slice(0, CHANGED_SHOWN)
      .map(sideBySide)
    const replay = { ...data, verdict, changed }
    log.info({ rebuildId, verdict, overall: data.overall }, 'rebuild replayed')
    if (verdict === 'refused') return { rebuilt: [], replay }
    const rebuilt: RebuildReport[] = []
    while (shadows.length > 0) rebuilt.push(await swapIn(db, store, shadows.shift()!, log))
    return { rebuilt, replay }
  } finally {
    for (const s of shadows) await dropShadow(db, s)
  }
}
