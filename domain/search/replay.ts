import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { Decider } from '../shared'

/** The milliseconds a side took to answer: the median and the 95th percentile. */
const Latency = t.type({ p50: t.number, p95: t.number })

/**
 * How a rebuild's new read models (the shadow) answered the logged queries against the read models
 * in service (live): the mean overlap of the two top 10s and their rank-biased overlap; the queries
 * whose first result is no longer first, and those answered empty now but not before; each side's
 * latency; where judgments were given, each side's nDCG@10 over the judged questions.
 */
export const ReplayFigures = t.intersection([
  t.type({
    queries: t.number,
    overlap: t.number,
    rbo: t.number,
    lostFirst: t.number,
    emptyNow: t.number,
    latency: t.type({ live: Latency, shadow: Latency }),
  }),
  t.partial({ judged: t.type({ questions: t.number, live: t.number, shadow: t.number }) }),
])
export type ReplayFigures = t.TypeOf<typeof ReplayFigures>

export const Verdict = t.keyof({ allowed: null, refused: null, forced: null })
export type Verdict = t.TypeOf<typeof Verdict>

/** A rebuild's replay and its verdict on the cut-over, with the figures (never the queries' texts). */
export const RebuildReplayed = t.type({
  type: t.literal('RebuildReplayed'),
  data: t.type({
    rebuildId: t.string,
    projections: t.array(t.string),
    verdict: Verdict,
    /** The share of queries that may lose their first result before the cut-over is refused. */
    maxLost: t.number,
    /** Logged queries left out: asked as of a past moment, of content deleted since, or of a disabled base. */
    skipped: t.number,
    overall: ReplayFigures,
    workspaces: t.array(t.intersection([t.type({ workspaceId: t.string }), ReplayFigures])),
  }),
})
export type RebuildReplayed = t.TypeOf<typeof RebuildReplayed>

export type ReplayCommand = {
  type: 'RecordReplay'
  data: Omit<RebuildReplayed['data'], 'verdict'> & { force: boolean }
}

/**
 * The cut-over is refused when the shadow loses the first result of more than `maxLost` of the
 * queries, unless forced; a replay with no query to compare allows it.
 */
export const verdictOf = (overall: ReplayFigures, maxLost: number, force: boolean): Verdict => {
  const lost = overall.queries === 0 ? 0 : overall.lostFirst / overall.queries
  return lost <= maxLost ? 'allowed' : force ? 'forced' : 'refused'
}

export const rebuildReplay: Decider<ReplayCommand, RebuildReplayed, { recorded: boolean }> = {
  events: RebuildReplayed,
  initialState: () => ({ recorded: false }),
  evolve: () => ({ recorded: true }),
  decide: ({ data: { force, ...data } }, state) =>
    E.right(
      state.recorded
        ? []
        : [{ type: 'RebuildReplayed', data: { ...data, verdict: verdictOf(data.overall, data.maxLost, force) } }],
    ),
}
