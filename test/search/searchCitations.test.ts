import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type SearchContext, search, startWithCorpus } from '../helpers/searchCorpus'
import { ok, seedMember, startTestService } from '../helpers/service'

const test = suite<SearchContext>('API: search (citations)')
test.before(startWithCorpus)
test.after(async ({ svc }) => svc.stop())

test('citations: each served result counts once per search; searches counted in statistics', async ({ svc }) => {
  const w = await seedMember(svc.call, 'owner')
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: w.token,
      body: { title: 'cited', source: 'text', content: 'Gobbledygook citations accumulate.' },
    }),
    201,
  )
  ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: w.token,
      body: { title: 'other', source: 'text', content: 'Unrelated words entirely.' },
    }),
    201,
  )
  for (let i = 0; i < 3; i++) await search(svc, w.token, { query: 'gobbledygook', mode: 'text', minScore: 0 })
  await search(svc, w.token, { query: 'nothing matches zzzqqq', mode: 'text', minScore: 0 })
  // Records are appended after the answers: a read asked to settle counts them all.
  const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}?settle=true`, { token: w.token }))
  assert.is(got.citedCount, 3)
  assert.is(
    ok(await svc.call('GET', '/api/v1/knowledge/stats', { token: w.token })).stats.recentActivity.searchesLast24h,
    4,
  )
  const events = ok(
    await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=100', { token: w.token }),
  ).events
  assert.is(events.length, 4)
})

test('citations are appended after the answer (batched), and a graceful stop appends those still waiting', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-citations-'))
  let svc = await startTestService({}, undefined, { dataDir })
  try {
    const w = await seedMember(svc.call, 'owner')
    const e = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title: 'cited', source: 'text', content: 'Flibbertigibbet appears here.' },
      }),
      201,
    )
    const served = await Promise.all(
      Array.from({ length: 5 }, () => search(svc, w.token, { query: 'flibbertigibbet', mode: 'text', minScore: 0 })),
    )
    assert.equal(
      served.map((r) => r.results.length),
      [1, 1, 1, 1, 1],
    )
    await svc.stop()
    svc = await startTestService({}, undefined, { dataDir })
    const got = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: w.token }))
    assert.is(got.citedCount, 5, 'every search answered before the stop is counted')
    const recorded = ok(
      await svc.call('GET', '/api/v1/audit/events?type=SearchServed&limit=100', { token: w.token }),
    ).events
    assert.is(recorded.length, 5)
  } finally {
    await svc.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test.run()
