import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member }>('API: folders (create, names, fields, lists)')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'editor')
})
test.after(async ({ svc }) => svc.stop())

test('create, get, list, patch; documentCount follows creates, moves and deletes', async ({ svc, m }) => {
  const f = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', {
      token: m.token,
      body: { name: 'Runbooks', description: 'Ops', color: '#12abEF', icon: 'book-open' },
    }),
    201,
  )
  assert.equal(
    { name: f.name, description: f.description, color: f.color, icon: f.icon, documentCount: f.documentCount },
    { name: 'Runbooks', description: 'Ops', color: '#12abEF', icon: 'book-open', documentCount: 0 },
  )
  const g = ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Other' } }), 201)
  const mk = (folderId: string | null) =>
    svc
      .call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 't', source: 'text', content: 'c.', folderId },
      })
      .then((r) => ok(r, 201))
  const a = await mk(f.id)
  await mk(f.id)
  const loose = await mk(null)
  // folderId=root lists the entries in no folder.
  const root = ok(await svc.call('GET', '/api/v1/knowledge?folderId=root', { token: m.token }))
  assert.equal(
    root.items.map((x: any) => x.id),
    [loose.id],
  )
  assert.is(root.total, 1)
  const count = async (id: string) =>
    ok(await svc.call('GET', `/api/v1/knowledge/folders/${id}`, { token: m.token })).documentCount
  assert.is(await count(f.id), 2)
  ok(await svc.call('POST', `/api/v1/knowledge/${a.id}/move`, { token: m.token, body: { folderId: g.id } }))
  assert.is(await count(f.id), 1)
  assert.is(await count(g.id), 1)
  ok(await svc.call('DELETE', `/api/v1/knowledge/${a.id}`, { token: m.token }))
  assert.is(await count(g.id), 0)
  const list = ok(await svc.call('GET', '/api/v1/knowledge/folders', { token: m.token }))
  assert.equal(
    list.folders.map((x: any) => [x.name, x.documentCount]),
    [
      ['Runbooks', 1],
      ['Other', 0],
    ],
  )
  assert.ok(list.folders.every((x: any) => x.id && x.createdAt))
  const p = ok(
    await svc.call('PATCH', `/api/v1/knowledge/folders/${g.id}`, {
      token: m.token,
      body: { name: 'Renamed', description: 'd' },
    }),
  )
  assert.equal([p.name, p.description], ['Renamed', 'd'])
  // The old name is free again; a case change of one's own name is not a conflict.
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'other' } }), 201)
  ok(await svc.call('PATCH', `/api/v1/knowledge/folders/${g.id}`, { token: m.token, body: { name: 'RENAMED' } }))
})

test('names are unique per workspace, case-insensitively, also under concurrent creates', async ({ svc, m }) => {
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Specs' } }), 201)
  const e = expectError(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: ' SPECS ' } }),
    409,
    'CONFLICT',
  )
  assert.match(e.details![0], /^name:/)
  const results = await Promise.all(
    Array.from({ length: 5 }, () =>
      svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Race' } }),
    ),
  )
  assert.equal(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409])
  const other = await seedMember(svc.call, 'owner')
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Specs' } }), 201)
  const x = ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Xyz' } }), 201)
  expectError(
    await svc.call('PATCH', `/api/v1/knowledge/folders/${x.id}`, { token: m.token, body: { name: 'specs' } }),
    409,
    'CONFLICT',
  )
  // One name however its accents were typed; one line.
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Caf\u00e9' } }), 201)
  expectError(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Cafe\u0301' } }),
    409,
    'CONFLICT',
  )
  expectError(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Two\nlines' } }),
    400,
    'VALIDATION_ERROR',
  )
})

test('bad input and other workspaces', async ({ svc, m }) => {
  const head = await svc.deps.store.headPosition()
  const bad = async (body: object, field: string) => {
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body }),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      e.details!.some((d) => d.startsWith(`${field}:`)),
      JSON.stringify(e.details),
    )
  }
  await bad({}, 'name')
  await bad({ name: 'n'.repeat(101) }, 'name')
  await bad({ name: 'ok', description: 'd'.repeat(501) }, 'description')
  await bad({ name: 'ok', color: 'red' }, 'color')
  await bad({ name: 'ok', icon: '<script>' }, 'icon')
  assert.is(await svc.deps.store.headPosition(), head)
  const other = await seedMember(svc.call, 'owner')
  const theirs = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Private' } }),
    201,
  )
  expectError(await svc.call('GET', `/api/v1/knowledge/folders/${theirs.id}`, { token: m.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('PATCH', `/api/v1/knowledge/folders/${theirs.id}`, { token: m.token, body: { name: 'x' } }),
    404,
    'NOT_FOUND',
  )
  expectError(await svc.call('DELETE', `/api/v1/knowledge/folders/${theirs.id}`, { token: m.token }), 404, 'NOT_FOUND')
  assert.not.ok(
    ok(await svc.call('GET', '/api/v1/knowledge/folders', { token: m.token })).folders.some(
      (f: any) => f.id === theirs.id,
    ),
  )
})

test('fields a folder create does not know are ignored: workspaceId, folderId and the rest change nothing', async ({
  svc,
  m,
}) => {
  const other = await seedMember(svc.call, 'owner')
  const otherFolder = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Theirs' } }),
    201,
  )
  const f = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', {
      token: m.token,
      body: { name: 'Intruder', workspaceId: other.workspaceId, folderId: otherFolder.id, junk: { a: 1 } },
    }),
    201,
  )
  assert.is(f.name, 'Intruder')
  assert.is.not(f.id, otherFolder.id)
  assert.ok(
    ok(await svc.call('GET', '/api/v1/knowledge/folders', { token: m.token })).folders.some((x: any) => x.id === f.id),
  )
  assert.not.ok(
    ok(await svc.call('GET', '/api/v1/knowledge/folders', { token: other.token })).folders.some(
      (x: any) => x.name === 'Intruder',
    ),
  )
  // The other workspace may still use the name.
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Intruder' } }), 201)
  const [created] = await svc.deps.store.readStream(`folder-${f.id}`)
  assert.equal(Object.keys(created.data as object).sort(), ['folderId', 'name', 'workspaceId'])
})

test('a PATCH that changes nothing records nothing', async ({ svc, m }) => {
  const f = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', {
      token: m.token,
      body: { name: 'Still', description: 'd', color: '#000000' },
    }),
    201,
  )
  const head = await svc.deps.store.headPosition()
  for (const body of [{}, { name: 'Still', description: 'd' }, { color: '#000000', unknown: 1 }]) {
    const p = ok(await svc.call('PATCH', `/api/v1/knowledge/folders/${f.id}`, { token: m.token, body }))
    assert.is(p.updatedAt, f.updatedAt)
  }
  assert.is(await svc.deps.store.headPosition(), head)
  assert.is(
    ok(await svc.call('PATCH', `/api/v1/knowledge/folders/${f.id}`, { token: m.token, body: { description: 'new' } }))
      .description,
    'new',
  )
})

test(
  'lists and search by folder: unknown folders answer 404; lists filter by processingStatus and can leave ' +
    'content out; unknown parameters are named',
  async ({ svc }) => {
    const m = await seedMember(svc.call, 'owner')
    const other = await seedMember(svc.call, 'owner')
    const f = ok(
      await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Marsupials' } }),
      201,
    )
    const theirs = ok(
      await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Theirs' } }),
      201,
    )
    const inFolder = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 'Quokkas', source: 'text', content: 'Quokkas live on Rottnest Island.', folderId: f.id },
      }),
      201,
    )
    const atRoot = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: {
          title: 'Rottnest ferries',
          source: 'text',
          content: 'Ferries to Rottnest Island leave from Fremantle.',
        },
      }),
      201,
    )
    const list = (q: string) => svc.call('GET', `/api/v1/knowledge?${q}`, { token: m.token })
    assert.equal(
      ok(await list(`folderId=${f.id}`)).items.map((e: any) => e.id),
      [inFolder.id],
    )
    expectError(await list(`folderId=${theirs.id}`), 404, 'NOT_FOUND')
    expectError(await list('folderId=no-such-folder'), 404, 'NOT_FOUND')
    assert.is(ok(await list('processingStatus=completed')).total, 2)
    assert.is(ok(await list('processingStatus=failed')).total, 0)
    const bare = ok(await list('includeContent=false')).items
    assert.equal(
      bare.map((e: any) => [e.title, 'content' in e, 'searchableText' in e]),
      [
        ['Rottnest ferries', false, false],
        ['Quokkas', false, false],
      ],
    )
    assert.ok('content' in ok(await list('includeContent=true')).items[0])
    const unknown = expectError(await list('q=socat'), 400, 'VALIDATION_ERROR')
    assert.match(
      unknown.details![0],
      /^q: is not a query parameter of GET \/api\/v1\/knowledge \(it takes page, limit, /,
    )
    assert.is(ok(await list('externalRef.jira=ABC-1')).total, 0, 'externalRef.<key> stays allowed')
    const search = (body: object) =>
      svc.call('POST', '/api/v1/knowledge/search', {
        token: m.token,
        body: { query: 'Rottnest Island', mode: 'text', minScore: 0, ...body },
      })
    assert.equal(
      ok(await search({}))
        .results.map((r: any) => r.id)
        .sort(),
      [inFolder.id, atRoot.id].sort(),
    )
    assert.equal(
      ok(await search({ folderId: f.id })).results.map((r: any) => r.id),
      [inFolder.id],
    )
    expectError(await search({ folderId: theirs.id }), 404, 'NOT_FOUND')
  },
)

test.run()
