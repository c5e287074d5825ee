import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type SearchContext, search, startWithCorpus } from '../helpers/searchCorpus'
import { expectError, ok, seedMember } from '../helpers/service'

const test = suite<SearchContext>('API: search (workspace settings)')
test.before(startWithCorpus)
test.after(async ({ svc }) => svc.stop())

test(
  'the endpoint takes mode, limit and minScore from the workspace where it set them, its own defaults ' + 'elsewhere',
  async ({ svc }) => {
    const w = await seedMember(svc.call, 'owner')
    for (let i = 0; i < 4; i++) {
      ok(
        await svc.call('POST', '/api/v1/knowledge', {
          token: w.token,
          body: { title: `t${i}`, source: 'text', content: `Grommet number ${i} fits the flange.` },
        }),
        201,
      )
    }
    // Nothing set: hybrid, 5, 0.5.
    const d = await search(svc, w.token, { query: 'grommet flange' })
    assert.is(d.mode, 'hybrid')
    assert.ok(d.results.every((x: any) => x.score >= 0.5))
    ok(
      await svc.call('PATCH', '/api/v1/knowledge/config', {
        token: w.token,
        body: { search: { defaultMode: 'text', defaultLimit: 2, minScore: 0 } },
      }),
    )
    const set = await search(svc, w.token, { query: 'grommet flange' })
    assert.is(set.mode, 'text')
    assert.is(set.results.length, 2)
    // What the request says wins.
    const asked = await search(svc, w.token, { query: 'grommet flange', mode: 'hybrid', limit: 3 })
    assert.is(asked.mode, 'hybrid')
    assert.is(asked.results.length, 3)
    // A setting set to the value it had is set all the same: the configuration's 0.7, not the endpoint's 0.5.
    const v = await seedMember(svc.call, 'owner')
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: v.token,
        body: { title: 'g', source: 'text', content: 'Grommet fits the flange.' },
      }),
      201,
    )
    ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: v.token, body: { search: { minScore: 0.7 } } }))
    const strict = await search(svc, v.token, { query: 'grommet flange washer bolt nut' })
    assert.ok(strict.results.every((x: any) => x.score >= 0.7))
    const loose = await search(svc, v.token, { query: 'grommet flange washer bolt nut', minScore: 0 })
    assert.ok(loose.results.length >= strict.results.length)
  },
)

test("search.fusion rrf orders hybrid by the legs' ranks and still serves calibrated scores", async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  for (const [t, c] of [
    ['a', 'Sprocket chains drive the rear wheel.'],
    ['b', 'A sprocket is a toothed wheel.'],
    ['c', 'Chains and wheels of bicycles.'],
  ]) {
    ok(
      await svc.call('POST', '/api/v1/knowledge', { token: w.token, body: { title: t, source: 'text', content: c } }),
      201,
    )
  }
  const byScore = await search(svc, w.token, { query: 'sprocket wheel chains', mode: 'hybrid', minScore: 0 })
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { search: { fusion: 'rrf' } } }))
  assert.is(ok(await svc.call('GET', '/api/v1/knowledge/config', { token: w.token })).config.search.fusion, 'rrf')
  const byRank = await search(svc, w.token, { query: 'sprocket wheel chains', mode: 'hybrid', minScore: 0 })
  const rrf = (x: any) =>
    (x.ranks.text ? 1 / (60 + x.ranks.text) : 0) + (x.ranks.vector ? 1 / (60 + x.ranks.vector) : 0)
  for (let i = 1; i < byRank.results.length; i++) assert.ok(rrf(byRank.results[i - 1]) >= rrf(byRank.results[i]))
  const scoreOf = new Map(byScore.results.map((x: any) => [x.id, x.score]))
  for (const x of byRank.results) assert.is(x.score, scoreOf.get(x.id))
  expectError(
    await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { search: { fusion: 'borda' } } }),
    400,
    'VALIDATION_ERROR',
  )
})

test.run()
