import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member }>('API: knowledge entries (text path): refusals and isolation')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

test('a viewer reads but every write is 403 FORBIDDEN', async ({ svc, m }) => {
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  ok(await svc.call('GET', '/api/v1/knowledge', { token: viewer.token }))
  const head = await svc.deps.store.headPosition()
  expectError(
    await svc.call('POST', '/api/v1/knowledge', {
      token: viewer.token,
      body: { title: 'x', source: 'text', content: 'y' },
    }),
    403,
    'FORBIDDEN',
  )
  expectError(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: viewer.token, body: { name: 'v' } }),
    403,
    'FORBIDDEN',
  )
  assert.is(await svc.deps.store.headPosition(), head)
})

test('workspace isolation: another workspace reads, changes and moves nothing; its ids are 404', async ({ svc, m }) => {
  const other = await seedMember(svc.call, 'owner')
  const mine = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Mine', source: 'text', content: 'mine.' },
    }),
    201,
  )
  const theirFolder = ok(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: other.token, body: { name: 'Theirs' } }),
    201,
  )
  expectError(await svc.call('GET', `/api/v1/knowledge/${mine.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('PATCH', `/api/v1/knowledge/${mine.id}`, { token: other.token, body: { title: 'hijack' } }),
    404,
    'NOT_FOUND',
  )
  expectError(await svc.call('DELETE', `/api/v1/knowledge/${mine.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('POST', `/api/v1/knowledge/${mine.id}/move`, { token: other.token, body: { folderId: null } }),
    404,
    'NOT_FOUND',
  )
  expectError(await svc.call('POST', `/api/v1/knowledge/${mine.id}/verify`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('POST', `/api/v1/knowledge/${mine.id}/move`, { token: m.token, body: { folderId: theirFolder.id } }),
    404,
    'NOT_FOUND',
  )
  expectError(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'x', source: 'text', content: 'y', folderId: theirFolder.id },
    }),
    404,
    'NOT_FOUND',
  )
  assert.not.ok(
    ok(await svc.call('GET', '/api/v1/knowledge', { token: other.token })).items.some((e: any) => e.id === mine.id),
  )
  assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${mine.id}`, { token: m.token })).title, 'Mine')
})

test('bad input: each gives 400 VALIDATION_ERROR naming the field, and writes nothing', async ({ svc, m }) => {
  const head = await svc.deps.store.headPosition()
  const bad = async (body: object, field: string) => {
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge', { token: m.token, body }),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      e.details!.some((d) => d.startsWith(`${field}:`)),
      `${field} in ${JSON.stringify(e.details)}`,
    )
  }
  await bad({ source: 'text', content: 'x' }, 'title')
  await bad({ title: '', source: 'text', content: 'x' }, 'title')
  await bad({ title: 'x'.repeat(501), source: 'text', content: 'x' }, 'title')
  await bad({ title: 't', source: 'text' }, 'content')
  await bad({ title: 't', source: 'text', content: 'x'.repeat(500_001) }, 'content')
  await bad({ title: 't', source: 'pdf', content: 'x' }, 'source')
  await bad(
    { title: 't', source: 'text', content: 'x', chunkingOptions: { chunkSizeTokens: 99 } },
    'chunkingOptions.chunkSizeTokens',
  )
  await bad(
    { title: 't', source: 'text', content: 'x', chunkingOptions: { overlapTokens: 501 } },
    'chunkingOptions.overlapTokens',
  )
  await bad(
    { title: 't', source: 'text', content: 'x', chunkingOptions: { chunkSizeTokens: 200, overlapTokens: 200 } },
    'chunkingOptions.overlapTokens',
  )
  await bad({ title: 't', source: 'text', content: 'x', externalReferenceIds: { crm: 5 } }, 'externalReferenceIds')
  await bad({ title: 't', source: 'text', content: 'x', externalReferenceIds: ['a'] }, 'externalReferenceIds')
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'ok', source: 'text', content: 'ok' },
    }),
    201,
  )
  const afterCreate = await svc.deps.store.headPosition()
  const patch = expectError(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, { token: m.token, body: { content: 'x'.repeat(100_001) } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.match(patch.details![0], /^content:/)
  expectError(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 't', source: 'text', content: 'x', folderId: 'no-such-folder' },
    }),
    404,
    'NOT_FOUND',
  )
  const list = async (q: string, field: string) => {
    const err = expectError(await svc.call('GET', `/api/v1/knowledge${q}`, { token: m.token }), 400, 'VALIDATION_ERROR')
    assert.ok(
      err.details!.some((d) => d.startsWith(`${field}:`)),
      `${field} in ${JSON.stringify(err.details)}`,
    )
  }
  await list('?limit=0', 'limit')
  await list('?limit=101', 'limit')
  await list('?page=0', 'page')
  await list('?freshness=ancient', 'freshness')
  await list('?source=text', 'source')
  await list('?externalRef.crm=a&externalRef.crm=b', 'externalRef.crm')
  expectError(await svc.call('GET', '/api/v1/knowledge/unknown-id', { token: m.token }), 404, 'NOT_FOUND')
  assert.is(await svc.deps.store.headPosition(), afterCreate)
  assert.ok(afterCreate > head)
})

test(
  'input no command can store is refused with 400, never a 500: lone surrogates, deep nesting, a body that ' +
    'is not JSON',
  async ({ svc, m }) => {
    const e = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 'kept', source: 'text', content: 'kept.' },
      }),
      201,
    )
    const head = await svc.deps.store.headPosition()
    const bad = async (
      method: string,
      path: string,
      options: { body?: unknown; raw?: string; headers?: Record<string, string> },
      detail: RegExp,
    ) => {
      const err = expectError(await svc.call(method, path, { token: m.token, ...options }), 400, 'VALIDATION_ERROR')
      assert.ok(
        err.details!.some((d) => detail.test(d)),
        `${detail} in ${JSON.stringify(err.details)}`,
      )
    }
    // Half of an emoji: JSON allows it, Postgres's JSON does not.
    await bad(
      'POST',
      '/api/v1/knowledge',
      { body: { title: 'lone', source: 'text', content: 'a\ud800b' } },
      /^content: .*surrogate/,
    )
    await bad('PATCH', `/api/v1/knowledge/${e.id}`, { body: { title: 'x\udc00' } }, /^title: .*surrogate/)
    await bad(
      'POST',
      '/api/v1/knowledge',
      { body: { title: 't', source: 'text', content: 'c', metadata: { ['k\ud800']: 'v' } } },
      /^metadata\.k.*surrogate/,
    )
    const deep = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`
    await bad(
      'POST',
      '/api/v1/knowledge',
      { raw: `{"title":"t","source":"text","content":"c","metadata":{"deep":${deep}}}` },
      /nested deeper than 32 levels/,
    )
    // A PATCH whose body the JSON parser did not read must not pass for an empty one.
    await bad(
      'PATCH',
      `/api/v1/knowledge/${e.id}`,
      { raw: JSON.stringify({ title: 'via text/plain' }), headers: { 'content-type': 'text/plain' } },
      /^body: .*application\/json/,
    )
    await bad(
      'PATCH',
      '/api/v1/knowledge/config',
      { raw: JSON.stringify({ maxDocuments: 5 }), headers: { 'content-type': 'text/plain' } },
      /^body:/,
    )
    // Nor a create's, on the routes that take a multipart form too.
    const created = JSON.stringify({ title: 'via text/plain', source: 'text', content: 'c' })
    await bad(
      'POST',
      '/api/v1/knowledge',
      { raw: created, headers: { 'content-type': 'text/plain' } },
      /^body: .*application\/json or multipart\/form-data/,
    )
    await bad(
      'POST',
      '/api/v1/knowledge',
      { raw: 'title=t&source=text&content=c', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      /^body:/,
    )
    await bad(
      'POST',
      '/api/v1/knowledge/upload',
      { raw: JSON.stringify({ sourceType: 'text', content: 'c' }), headers: { 'content-type': 'text/plain' } },
      /^body: .*application\/json$/,
    )
    await bad(
      'POST',
      '/api/v1/knowledge/upload/file',
      { raw: 'x', headers: { 'content-type': 'text/plain' } },
      /^body: .*multipart/,
    )
    assert.is(await svc.deps.store.headPosition(), head)
    assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })).title, 'kept')
    // A well-formed emoji is fine, and counts as one character.
    const emoji = '\u{1F600}'
    const smiles = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: emoji.repeat(500), source: 'text', content: `${emoji} fine` },
      }),
      201,
    )
    assert.is([...smiles.title].length, 500)
    await bad(
      'POST',
      '/api/v1/knowledge',
      { body: { title: emoji.repeat(501), source: 'text', content: 'c' } },
      /^title:/,
    )
  },
)

test.run()
