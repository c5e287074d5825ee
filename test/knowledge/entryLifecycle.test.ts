import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member }>('API: knowledge entries (text path): list, patch, delete, move')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

test('list: newest first, filters, externalRef.<key>, pagination object', async ({ svc }) => {
  const w = await seedMember(svc.call, 'editor')
  const mk = (title: string, extra: object = {}) =>
    svc
      .call('POST', '/api/v1/knowledge', {
        token: w.token,
        body: { title, source: 'text', content: `${title} body.`, ...extra },
      })
      .then((r) => ok(r, 201))
  const a = await mk('Alpha guide', {
    metadata: { category: 'guides', tags: ['x', 'y'] },
    externalReferenceIds: { crm: 'A' },
  })
  const b = await mk('Beta notes', {
    source: 'transcript',
    metadata: { tags: ['y'] },
    externalReferenceIds: { crm: 'B', zone: 'eu' },
  })
  const c = await mk('Gamma 100%_done', { isEnabled: false })
  const list = async (q: string) => ok(await svc.call('GET', `/api/v1/knowledge${q}`, { token: w.token }))
  const all = await list('')
  assert.equal(
    all.items.map((e: any) => e.id),
    [c.id, b.id, a.id],
  )
  assert.equal(all.pagination, { page: 1, limit: 20, total: 3, totalPages: 1, hasNext: false, hasPrev: false })
  assert.equal(
    (await list('?source=transcript')).items.map((e: any) => e.id),
    [b.id],
  )
  assert.equal(
    (await list('?category=guides')).items.map((e: any) => e.id),
    [a.id],
  )
  assert.equal(
    (await list('?tag=y')).items.map((e: any) => e.id),
    [b.id, a.id],
  )
  assert.equal(
    (await list('?isEnabled=false')).items.map((e: any) => e.id),
    [c.id],
  )
  assert.equal(
    (await list('?search=GUIDE')).items.map((e: any) => e.id),
    [a.id],
  )
  assert.equal(
    (await list('?search=100%25_')).items.map((e: any) => e.id),
    [c.id],
  )
  assert.equal(
    (await list('?search=%25')).items.map((e: any) => e.id),
    [c.id],
  )
  assert.equal(
    (await list('?externalRef.crm=B')).items.map((e: any) => e.id),
    [b.id],
  )
  assert.equal(
    (await list('?externalRef.crm=B&externalRef.zone=eu')).items.map((e: any) => e.id),
    [b.id],
  )
  assert.equal((await list('?externalRef.crm=B&externalRef.zone=us')).items, [])
  assert.equal((await list('?freshness=current')).total, 3)
  assert.equal((await list('?freshness=stale')).total, 0)
  const p2 = await list('?limit=2&page=2')
  assert.equal(
    p2.items.map((e: any) => e.id),
    [a.id],
  )
  assert.equal(p2.pagination, { page: 2, limit: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true })
})

test('patch: only supplied fields change; content re-chunks, re-embeds and regenerates searchableText', async ({
  svc,
  m,
}) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Patch me', source: 'text', content: 'Old words here.', metadata: { category: 'a', tags: ['t'] } },
    }),
    201,
  )
  const before = await svc.deps.db.pool.query('SELECT content FROM kb_chunks WHERE entry_id = $1', [e.id])
  const p = ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: m.token,
      body: { content: 'Brand NEW text about Vacuum.', metadata: { author: 'Ann' } },
    }),
  )
  assert.is(p.title, 'Patch me')
  assert.equal(p.metadata, { category: 'a', tags: ['t'], author: 'Ann' })
  assert.is(p.searchableText, 'brand new text about vacuum')
  const after = await svc.deps.db.pool.query('SELECT content FROM kb_chunks WHERE entry_id = $1', [e.id])
  assert.equal(
    before.rows.map((r: any) => r.content),
    ['Old words here.'],
  )
  assert.equal(
    after.rows.map((r: any) => r.content),
    ['Brand NEW text about Vacuum.'],
  )
  // The title is part of what each passage embeds: renaming re-embeds.
  const vector = async () =>
    (await svc.deps.db.pool.query('SELECT embedding::text AS v FROM kb_passages WHERE entry_id = $1', [e.id])).rows[0].v
  const beforeRename = await vector()
  const off = ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: m.token,
      body: { isEnabled: false, title: 'Renamed' },
    }),
  )
  assert.is.not(await vector(), beforeRename)
  assert.is(off.isEnabled, false)
  assert.is(off.title, 'Renamed')
  assert.is(off.content, 'Brand NEW text about Vacuum.')
})

test('delete removes entry, chunks and its content from the event store; a second delete is 404', async ({
  svc,
  m,
}) => {
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Secret', source: 'text', content: 'the launch code is 0000' },
    }),
    201,
  )
  assert.equal(ok(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token })), {
    deleted: true,
    id: e.id,
  })
  expectError(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token }), 404, 'NOT_FOUND')
  expectError(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token }), 404, 'NOT_FOUND')
  const chunks = await svc.deps.db.pool.query('SELECT count(*)::int AS n FROM kb_chunks WHERE entry_id = $1', [e.id])
  assert.is(chunks.rows[0].n, 0)
  const leaks = await svc.deps.db.pool.query(
    "SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%launch code%'",
  )
  assert.is(leaks.rows[0].n, 0)
  const audit = await svc.deps.db.pool.query(
    "SELECT count(*)::int AS n FROM audit_events WHERE data::text LIKE '%launch code%'",
  )
  assert.is(audit.rows[0].n, 0)
  const tomb = await svc.deps.store.readStream(`entry-${e.id}`)
  assert.equal(
    tomb.map((x) => x.type),
    ['EntryDeleted'],
  )
  assert.is((tomb[0].data as any).deletedBy, m.userId)
})

test('move to a folder and back to root; verify sets verified.at', async ({ svc, m }) => {
  const f = ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Moves' } }), 201)
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Mover', source: 'text', content: 'x.' },
    }),
    201,
  )
  assert.equal(
    ok(await svc.call('POST', `/api/v1/knowledge/${e.id}/move`, { token: m.token, body: { folderId: f.id } })),
    { id: e.id, folderId: f.id, previousFolderId: null },
  )
  assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })).folderId, f.id)
  assert.equal(
    ok(await svc.call('POST', `/api/v1/knowledge/${e.id}/move`, { token: m.token, body: { folderId: null } })),
    { id: e.id, folderId: null, previousFolderId: f.id },
  )
  assert.not.ok('folderId' in ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })))
  const v = ok(await svc.call('POST', `/api/v1/knowledge/${e.id}/verify`, { token: m.token }))
  assert.is(v.verified.by, m.userId)
  assert.ok(Date.now() - Date.parse(v.verified.at) < 60_000)
})

test.run()
