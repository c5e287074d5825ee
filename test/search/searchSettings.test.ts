import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type SearchContext, search, startWithCorpus } from '../helpers/searchCorpus'
import { ADMIN, expectError, ok, seedMember } from '../helpers/service'

const test = suite<SearchContext>('API: search (workspace settings)')
test.before(startWithCorpus)
test.after(async ({ svc }) => svc.stop())

test('a search leaving out mode, limit and minScore uses what the configuration shows, on REST and kb_search', async ({
  svc,
}) => {
  const w = await seedMember(svc.call, 'owner')
  for (let i = 0; i < 8; i++) {
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title: `t${i}`, source: 'text', content: `Grommet number ${i} fits the flange.` },
      }),
      201,
    )
  }
  const key = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: w.workspaceId, name: 'agent' },
    }),
    201,
  ).api_key
  const tool = async (args: object) => {
    const res = await svc.call('POST', '/api/v1/tools/native:kb_search/execute', {
      headers: { 'x-api-key': key },
      body: { arguments: args },
    })
    return ok(res).result ?? ok(res)
  }
  // A new workspace shows hybrid, 5, 0.5, and both ways of searching use them.
  const shown = ok(await svc.call('GET', '/api/v1/knowledge/config', { token: w.token })).config.search
  assert.equal([shown.defaultMode, shown.defaultLimit, shown.minScore], ['hybrid', 5, 0.5])
  for (const d of [await search(svc, w.token, { query: 'grommet flange' }), await tool({ query: 'grommet flange' })]) {
    assert.is(d.mode, 'hybrid')
    assert.ok(d.results.length <= 5)
    assert.ok(d.results.every((x: any) => x.score >= 0.5))
  }
  // The threshold alone changed: the shown limit of 5 holds eight matches to five, on both.
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: w.token, body: { search: { minScore: 0 } } }))
  assert.is(ok(await svc.call('GET', '/api/v1/knowledge/config', { token: w.token })).config.search.minScore, 0)
  assert.is((await search(svc, w.token, { query: 'grommet flange' })).results.length, 5)
  assert.is((await tool({ query: 'grommet flange' })).results.length, 5)
  // Changed, the configuration shows the new values and both use them.
  ok(
    await svc.call('PATCH', '/api/v1/knowledge/config', {
      token: w.token,
      body: { search: { defaultMode: 'text', defaultLimit: 2, minScore: 0 } },
    }),
  )
  const changed = ok(await svc.call('GET', '/api/v1/knowledge/config', { token: w.token })).config.search
  assert.equal([changed.defaultMode, changed.defaultLimit, changed.minScore], ['text', 2, 0])
  const set = await search(svc, w.token, { query: 'grommet flange' })
  assert.is(set.mode, 'text')
  assert.is(set.results.length, 2)
  const agentSet = await tool({ query: 'grommet flange' })
  assert.is(agentSet.mode, 'text')
  assert.is(agentSet.results.length, 2)
  // What the request says wins.
  const asked = await search(svc, w.token, { query: 'grommet flange', mode: 'hybrid', limit: 3 })
  assert.is(asked.mode, 'hybrid')
  assert.is(asked.results.length, 3)
})

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
