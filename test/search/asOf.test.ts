import { setTimeout as sleep } from 'node:timers/promises'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { serverUrl, testPostgres } from '../../testkit/db'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

/** A moment between two writes: their times differ from it by a few milliseconds at least. */
const moment = async () => {
  await sleep(15)
  const at = new Date().toISOString()
  await sleep(15)
  return at
}

/** The same journeys on PGlite (pg_textsearch, pgvector) and on a plain server (tsvector, exact vectors). */
const asOfSuite = (where: string, start: () => Promise<TestService>) => {
  const test = suite<{ svc: TestService; m: Member }>(
    `as of a past moment: entries, lists, pages and search (${where})`,
  )
  test.before(async (ctx) => {
    ctx.svc = await start()
    ctx.m = await seedMember(ctx.svc.call, 'owner')
  })
  test.after(async ({ svc }) => svc.stop())

  test('search, entry and list as of a time before and after an edit, and after a delete', async ({ svc, m }) => {
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
    const search = async (query: string, extra: object = {}) =>
      ok(await call('POST', '/api/v1/knowledge/search', { query, mode: 'text', minScore: 0, limit: 10, ...extra }))
    const beforeAll = await moment()
    const e = ok(
      await call('POST', '/api/v1/knowledge', {
        title: 'Quokka habitat',
        content: 'Quokkas live on Rottnest Island, off the coast of Perth.',
        source: 'text',
        metadata: { tags: ['marsupials'] },
      }),
      201,
    )
    const folder = ok(await call('POST', '/api/v1/knowledge/folders', { name: 'Islands' }), 201)
    const t1 = await moment()
    ok(
      await call('PATCH', `/api/v1/knowledge/${e.id}`, {
        title: 'Quokka range',
        content: 'Quokkas also live on Bald Island, east of Albany.',
        metadata: { tags: ['islands'] },
      }),
    )
    ok(await call('POST', `/api/v1/knowledge/${e.id}/move`, { folderId: folder.id }))
    const t2 = await moment()

    // Now: the new text only.
    assert.equal(
      (await search('quokkas rottnest')).results.map((r: any) => r.content),
      ['Quokkas also live on Bald Island, east of Albany.'],
    )
    assert.is((await search('rottnest')).results.length, 0)
    // As of t1: the text of then, its title and version, and the moment answered.
    const then = await search('rottnest', { asOf: t1 })
    assert.equal(
      then.results.map((r: any) => [r.id, r.title, r.content]),
      [[e.id, 'Quokka habitat', 'Quokkas live on Rottnest Island, off the coast of Perth.']],
    )
    assert.ok(then.asOf.position > 0 && then.asOf.time <= t1)
    assert.is((await search('albany', { asOf: t1 })).results.length, 0)
    // Filters apply to the rows of then: the tag of then, the folder it was not in yet.
    assert.is((await search('quokkas', { asOf: t1, tag: 'marsupials' })).results.length, 1)
    assert.is((await search('quokkas', { asOf: t1, tag: 'islands' })).results.length, 0)
    assert.is((await search('quokkas', { asOf: t1, folderId: folder.id })).results.length, 0)
    assert.is((await search('quokkas', { asOf: t2, folderId: folder.id })).results.length, 1)
    // Vectors of then, too (hybrid and vector modes read the history's passages).
    for (const mode of ['hybrid', 'vector']) {
      const r = await search('Rottnest Island near Perth', { asOf: t1, mode })
      assert.is(r.mode, mode)
      assert.is(r.results[0]?.content, 'Quokkas live on Rottnest Island, off the coast of Perth.')
      // Narrowed by a filter to few rows, which are then compared exactly.
      const tagged = await search('Rottnest Island near Perth', { asOf: t1, mode, tag: 'marsupials' })
      assert.equal([tagged.mode, tagged.results.map((x: any) => x.id)], [mode, [e.id]])
      assert.is((await search('Rottnest Island near Perth', { asOf: t1, mode, tag: 'islands' })).results.length, 0)
    }
    // A log position names the same moment; before the entry, there was nothing.
    const byPosition = await search('rottnest', { asOf: `pos:${then.asOf.position}` })
    assert.equal(byPosition.results, then.results)
    assert.equal(byPosition.asOf, then.asOf)
    assert.is((await search('quokkas', { asOf: beforeAll })).results.length, 0)
    // The search of then has a receipt saying so.
    const receipt = ok(await call('GET', `/api/v1/receipts/${then.receipt.id}`))
    assert.is(receipt.asOf, then.asOf.position)
    assert.is(receipt.results[0].status, 'changed')

    // The entry, and the list, as of then.
    const entryThen = ok(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${t1}`))
    assert.equal(
      [entryThen.title, entryThen.content, entryThen.metadata.tags, entryThen.folderId],
      ['Quokka habitat', 'Quokkas live on Rottnest Island, off the coast of Perth.', ['marsupials'], undefined],
    )
    assert.equal(entryThen.asOf, then.asOf)
    assert.is(ok(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${t2}`)).folderId, folder.id)
    expectError(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${beforeAll}`), 404, 'NOT_FOUND')
    const listThen = ok(await call('GET', `/api/v1/knowledge?asOf=${t1}`))
    assert.equal(
      listThen.items.map((i: any) => [i.id, i.title]),
      [[e.id, 'Quokka habitat']],
    )
    assert.equal(listThen.deleted, [])
    assert.is(ok(await call('GET', `/api/v1/knowledge?asOf=${t1}&folderId=${folder.id}`)).total, 0)

    // Deleted: its content is served as of no time; the title and the deletion remain.
    ok(await call('DELETE', `/api/v1/knowledge/${e.id}`))
    for (const at of [t1, t2]) {
      assert.is((await search('quokkas', { asOf: at })).results.length, 0)
      for (const mode of ['hybrid', 'vector'])
        assert.is((await search('quokkas', { asOf: at, mode })).results.length, 0)
    }
    const tomb = ok(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${t1}`))
    assert.is(tomb.content, undefined)
    assert.is(tomb.title, 'Quokka range')
    assert.ok(tomb.deleted.position > then.asOf.position)
    assert.match(tomb.message, /deleted/)
    const listAfter = ok(await call('GET', `/api/v1/knowledge?asOf=${t1}`))
    assert.equal([listAfter.items, listAfter.deleted.map((d: any) => d.id)], [[], [e.id]])

    // Rebuilt from the log, the history answers the same (the cut stream keeps the deletion's title).
    for (const name of ['chunks', 'knowledge', 'audit'])
      ok(await svc.call('POST', `/api/v1/admin/projections/${name}/rebuild`, { token: ADMIN }))
    assert.equal(ok(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${t1}`)).deleted, tomb.deleted)
    assert.is((await search('quokkas', { asOf: t1 })).results.length, 0)
  })

  test('a passage an edit replaced keeps its vector: a search of before the edit finds it by meaning', async ({
    svc,
  }) => {
    const m = await seedMember(svc.call, 'owner')
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
    const old = 'Bilbies eat insects, seeds and bulbs, digging for them in the desert at night.'
    const e = ok(await call('POST', '/api/v1/knowledge', { title: 'Bilby diet', content: old, source: 'text' }), 201)
    const t1 = await moment()
    ok(await call('PATCH', `/api/v1/knowledge/${e.id}`, { content: 'Bilbies are listed as vulnerable.' }))
    const pool = svc.deps.db.pool
    // With pgvector a replaced passage keeps its vector, in an index; without it every row is compared exactly.
    const kept = async () =>
      (
        await pool.query<{ kept: boolean }>(
          `SELECT closed_embedding IS NOT NULL AS kept FROM kb_passages_history
           WHERE entry_id = $1 AND valid_to IS NOT NULL AND content LIKE 'Bilbies eat%'`,
          [e.id],
        )
      ).rows.map((r) => r.kept)
    const found = async () => {
      const r = ok(
        await call('POST', '/api/v1/knowledge/search', {
          query: 'what do bilbies eat at night',
          mode: 'vector',
          asOf: t1,
          minScore: 0,
        }),
      )
      return r.results[0]?.content
    }
    assert.ok((await kept()).length >= 1)
    assert.ok((await kept()).every((k) => k === svc.deps.vectors))
    assert.is(await found(), old)
    if (svc.deps.vectors) {
      // A vector the cache lacked as the row closed: compared from the cache, until the filler gives it one.
      await pool.query('UPDATE kb_passages_history SET closed_embedding = NULL WHERE entry_id = $1', [e.id])
      assert.is(await found(), old)
      for (let i = 0; i < 100 && !(await kept()).every(Boolean); i++) await sleep(100)
      assert.ok((await kept()).every(Boolean), 'the embedding filler gave it its vector again')
    }
    // Rebuilt from the log, the closed rows keep their vectors again.
    ok(await svc.call('POST', '/api/v1/admin/projections/chunks/rebuild', { token: ADMIN }))
    assert.ok((await kept()).every((k) => k === svc.deps.vectors))
    assert.is(await found(), old)
  })

  test('a deletion leaves its tombstone as of a time when nothing else happened around it', async ({ svc }) => {
    // A workspace of its own: between the entry's creation and its deletion there is no other event.
    const m = await seedMember(svc.call, 'owner')
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
    const e = ok(
      await call('POST', '/api/v1/knowledge', { title: 'Lone wombat', content: 'Wombats dig.', source: 'text' }),
      201,
    )
    const t = await moment()
    ok(await call('DELETE', `/api/v1/knowledge/${e.id}`))
    const check = async () => {
      const tomb = ok(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${t}`))
      assert.equal([tomb.title, tomb.content, typeof tomb.deleted.position], ['Lone wombat', undefined, 'number'])
      assert.ok(tomb.asOf.time <= t && tomb.asOf.position > 0, JSON.stringify(tomb.asOf))
      const byPosition = ok(await call('GET', `/api/v1/knowledge/${e.id}?asOf=pos:${tomb.asOf.position}`))
      assert.equal(byPosition.deleted, tomb.deleted)
      const list = ok(await call('GET', `/api/v1/knowledge?asOf=${t}`))
      assert.equal([list.total, list.deleted.map((d: any) => d.id)], [0, [e.id]])
      const found = ok(await call('POST', '/api/v1/knowledge/search', { query: 'wombats', minScore: 0, asOf: t }))
      assert.equal([found.results, found.asOf], [[], tomb.asOf])
    }
    await check()
    for (const name of ['knowledge', 'audit'])
      ok(await svc.call('POST', `/api/v1/admin/projections/${name}/rebuild`, { token: ADMIN }))
    await check()
  })

  test('a rebuilt history answers as the live one did', async ({ svc, m }) => {
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
    const e = ok(
      await call('POST', '/api/v1/knowledge', { title: 'Bilby', content: 'Bilbies have long ears.', source: 'text' }),
      201,
    )
    const t1 = await moment()
    ok(await call('PATCH', `/api/v1/knowledge/${e.id}`, { content: 'Bilbies are nocturnal burrowers.' }))
    const body = { query: 'bilbies ears', mode: 'hybrid', minScore: 0, asOf: t1 }
    const live = ok(await call('POST', '/api/v1/knowledge/search', body))
    assert.is(live.results[0].content, 'Bilbies have long ears.')
    for (const name of ['chunks', 'knowledge', 'audit'])
      ok(await svc.call('POST', `/api/v1/admin/projections/${name}/rebuild`, { token: ADMIN }))
    const rebuilt = ok(await call('POST', '/api/v1/knowledge/search', body))
    assert.equal(
      rebuilt.results.map((r: any) => [r.id, r.content, r.version, r.sha256, r.scores]),
      live.results.map((r: any) => [r.id, r.content, r.version, r.sha256, r.scores]),
    )
    assert.equal(rebuilt.asOf, live.asOf)
  })

  test('a page as of a moment: the version of then, none before it, a tombstone once deleted', async ({ svc, m }) => {
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
    const before = await moment()
    const page = ok(await call('POST', '/api/v1/pages', { title: 'Feeding the echidna', content: 'Ants.' }), 201)
    const t1 = await moment()
    ok(await call('PATCH', `/api/v1/pages/${page.id}`, { content: 'Ants and termites.', expectedVersion: 1 }))
    const then = ok(await call('GET', `/api/v1/pages/${page.id}?asOf=${t1}`))
    assert.equal([then.version, then.content, then.latestVersion], [1, 'Ants.', 2])
    assert.ok(then.asOf.position > 0)
    assert.is(ok(await call('GET', `/api/v1/pages/${page.id}?asOf=${await moment()}`)).content, 'Ants and termites.')
    expectError(await call('GET', `/api/v1/pages/${page.id}?asOf=${before}`), 404, 'NOT_FOUND')
    expectError(await call('GET', `/api/v1/pages/${page.id}?asOf=${t1}&version=1`), 400, 'VALIDATION_ERROR')
    ok(await call('DELETE', `/api/v1/pages/${page.id}`))
    const tomb = ok(await call('GET', `/api/v1/pages/${page.id}?asOf=${t1}`))
    assert.equal([tomb.title, tomb.content, typeof tomb.deleted.position], ['Feeding the echidna', undefined, 'number'])
  })

  test('bad moments are refused, and another workspace sees nothing', async ({ svc, m }) => {
    const call = (method: string, path: string, body?: object, token = m.token) =>
      svc.call(method, path, { token, body })
    const e = ok(
      await call('POST', '/api/v1/knowledge', { title: 'Numbat', content: 'Termites.', source: 'text' }),
      201,
    )
    const future = new Date(Date.now() + 3_600_000).toISOString()
    for (const asOf of [future, 'pos:999999999999', 'yesterday', 'pos:-1', '2026-11-25', 12])
      expectError(await call('POST', '/api/v1/knowledge/search', { query: 'termites', asOf }), 400, 'VALIDATION_ERROR')
    for (const path of [`/api/v1/knowledge/${e.id}`, '/api/v1/knowledge', `/api/v1/pages/${e.id}`])
      expectError(await call('GET', `${path}?asOf=${encodeURIComponent(future)}`), 400, 'VALIDATION_ERROR')
    const other = await seedMember(svc.call, 'owner')
    const now = await moment()
    expectError(await call('GET', `/api/v1/knowledge/${e.id}?asOf=${now}`, undefined, other.token), 404, 'NOT_FOUND')
    const theirs = ok(
      await call('POST', '/api/v1/knowledge/search', { query: 'termites', minScore: 0, asOf: now }, other.token),
    )
    assert.equal(theirs.results, [])
  })

  test.run()
}

asOfSuite('PGlite', () => startTestService())
if (serverUrl) asOfSuite('Postgres server', async () => startTestService({}, await testPostgres()))
else {
  const skipped = suite('as of a past moment on the Postgres server')
  skipped.skip('the same journeys on the server (TEST_DATABASE_URL unset)', () => undefined)
  skipped.run()
}
