import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type RebuildReplayed, type ReplayFigures, rebuildReplay, verdictOf } from '../../domain/search/replay'
import { given } from '../../testkit/spec'

const test = suite("a rebuild's replay: the verdict on its cut-over")

const latency = { live: { p50: 10, p95: 20 }, shadow: { p50: 11, p95: 22 } }
const figures = (queries: number, lostFirst: number): ReplayFigures => ({
  queries,
  overlap: 0.9,
  rbo: 0.8,
  lostFirst,
  emptyNow: 0,
  latency,
})
const replayed = (lostFirst: number, force: boolean, maxLost = 0.1) => ({
  type: 'RecordReplay' as const,
  data: {
    rebuildId: 'r-1',
    projections: ['chunks'],
    maxLost,
    skipped: 2,
    overall: figures(100, lostFirst),
    workspaces: [{ workspaceId: 'ws-1', ...figures(100, lostFirst) }],
    force,
  },
})
const event = (verdict: RebuildReplayed['data']['verdict'], lostFirst: number): RebuildReplayed => {
  const { force: _, ...data } = replayed(lostFirst, false).data
  return { type: 'RebuildReplayed', data: { ...data, verdict } }
}

test('allowed up to the share of lost first results, refused past it, forced when told', () => {
  given(rebuildReplay)
    .when(replayed(10, false))
    .then([event('allowed', 10)])
  given(rebuildReplay)
    .when(replayed(11, false))
    .then([event('refused', 11)])
  given(rebuildReplay)
    .when(replayed(11, true))
    .then([event('forced', 11)])
  given(rebuildReplay)
    .when(replayed(0, true))
    .then([event('allowed', 0)], 'force changes nothing when allowed')
})

test('a replay with no query to compare allows the cut-over; a replay is recorded once', () => {
  assert.is(verdictOf(figures(0, 0), 0, false), 'allowed')
  assert.is(verdictOf(figures(10, 1), 0, false), 'refused', 'max-lost 0 refuses any loss')
  assert.is(verdictOf(figures(10, 10), 1, false), 'allowed', 'max-lost 100% allows all')
  given(rebuildReplay, [event('allowed', 0)])
    .when(replayed(50, false))
    .thenNothing()
})

test.run()
