import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as E from 'fp-ts/Either'
import { loadConfig } from '../../app/config'
import { ADMIN, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API shell: envelope, errors, request ids, configuration')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

test('GET /health reports readiness and each dependency', async ({ svc }) => {
  const data = ok(await svc.call('GET', '/health'))
  assert.is(data.status, 'ready')
  assert.is(data.dependencies.database.status, 'up')
  assert.equal([data.dependencies.eventStore.status, data.dependencies.eventStore.kind], ['up', 'pglite'])
  assert.equal(data.dependencies.search, { text: 'pg_textsearch', vectors: 'pgvector' })
  // The model, and the length its vectors are kept at.
  assert.equal(data.dependencies.embedder, { model: 'hashing-v1', dimensions: 1536 })
  assert.ok(data.dependencies.projections.length >= 4)
  assert.ok(data.dependencies.projections.every((p: any) => p.state === 'running'))
})

test('unknown route: 404 NOT_FOUND in the envelope; wrong method: 405 with Allow', async ({ svc }) => {
  expectError(await svc.call('GET', '/api/v1/nothing-here'), 404, 'NOT_FOUND')
  const r = await svc.call('PUT', '/api/v1/admin/users', { token: ADMIN })
  expectError(r, 405, 'METHOD_NOT_ALLOWED')
  assert.match(r.headers.get('allow') ?? '', /POST/)
})

test('malformed JSON and a non-object body: 400 VALIDATION_ERROR with details', async ({ svc }) => {
  const e = expectError(
    await svc.call('POST', '/api/v1/admin/users', { token: ADMIN, raw: '{"email": "a@b.co",' }),
    400,
    'VALIDATION_ERROR',
  )
  assert.ok(e.details!.length > 0)
  expectError(
    await svc.call('POST', '/api/v1/admin/users', { token: ADMIN, raw: '"just a string"' }),
    400,
    'VALIDATION_ERROR',
  )
  const array = expectError(
    await svc.call('POST', '/api/v1/admin/users', { token: ADMIN, raw: '[1,2]' }),
    400,
    'VALIDATION_ERROR',
  )
  // Details speak of the request, not of the validator's types.
  assert.equal(array.details, ['(body): must be a JSON object'])
})

test('a body over the limit: 413 PAYLOAD_TOO_LARGE', async ({ svc }) => {
  const r = await svc.call('POST', '/api/v1/admin/users', {
    token: ADMIN,
    body: { email: 'big@example.com', name: 'x'.repeat(8 * 1024 * 1024) },
  })
  expectError(r, 413, 'PAYLOAD_TOO_LARGE')
})

test('errors that say what to do: allowed values listed, an API key sent as a Bearer token, a nested folder', async ({
  svc,
}) => {
  const m = await seedMember(svc.call)
  const e = expectError(
    await svc.call('POST', '/api/v1/knowledge', { token: m.token, body: { title: 'x', content: 'y', source: 'fax' } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.ok(
    e.details?.some((d) => /^source: must be one of: text, url, file\b/.test(d)),
    JSON.stringify(e),
  )
  const mode = expectError(
    await svc.call('POST', '/api/v1/knowledge/search', { token: m.token, body: { query: 'x', mode: 'fuzzy' } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(mode.details, ['mode: must be one of: hybrid, vector, text'])
  const key = ok(
    await svc.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: m.workspaceId, name: 'agent' },
    }),
    201,
  ).api_key
  const asBearer = expectError(await svc.call('GET', '/api/v1/knowledge', { token: key }), 401, 'INVALID_TOKEN')
  assert.match(asBearer.message, /x-api-key/)
  const nested = expectError(
    await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Child', parentId: 'abc' } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(nested.details, ['parentId: folders do not nest; leave it out to create a top-level folder'])
  assert.equal(ok(await svc.call('GET', '/api/v1/knowledge/folders', { token: m.token })).folders, [])
})

test('wrong types and unknown enum values name each field; nothing is written', async ({ svc }) => {
  const head = await svc.deps.store.headPosition()
  const e = expectError(
    await svc.call('POST', '/api/v1/admin/workspaces', { token: ADMIN, body: { name: 7, slug: 'Not A Slug' } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(e.details, [
    'name: must be a string of 1-200 characters',
    'slug: must be a slug of lowercase letters, digits and dashes (1-60)',
  ])
  const t = expectError(
    await svc.call('POST', '/api/v1/admin/tokens', {
      token: ADMIN,
      body: { userId: 'u', workspaceId: 'w', ttlSeconds: 1.5 },
    }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(t.details, ['ttlSeconds: must be an integer between 60 and 31536000'])
  assert.is(await svc.deps.store.headPosition(), head)
})

test('unknown JSON fields are ignored, never applied', async ({ svc }) => {
  const data = ok(
    await svc.call('POST', '/api/v1/admin/workspaces', {
      token: ADMIN,
      body: { name: 'Ignored fields', id: 'chosen-id', createdBy: 'x', workspaceId: 'y' },
    }),
    201,
  )
  assert.is.not(data.id, 'chosen-id')
  const events = await svc.deps.store.readStream(`workspace-${data.id}`)
  assert.equal(Object.keys(events[0].data as object).sort(), ['name', 'slug', 'workspaceId'])
})

test('x-request-id: generated when absent, echoed when given; errors carry it too', async ({ svc }) => {
  const a = await svc.call('GET', '/health')
  assert.match(a.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/)
  const b = await svc.call('GET', '/nope', { headers: { 'x-request-id': 'trace-123' } })
  assert.is(b.headers.get('x-request-id'), 'trace-123')
})

test('an internal error answers 500 INTERNAL_ERROR without internals', async ({ svc }) => {
  // Break the read model the token check uses, then put it back.
  await svc.deps.db.pool.query('ALTER TABLE access_tokens RENAME TO access_tokens_away')
  try {
    const r = await svc.call('POST', '/api/v1/auth/validate', { token: 'kbt_whatever' })
    const e = expectError(r, 500, 'INTERNAL_ERROR')
    assert.not.match(JSON.stringify(e), /access_tokens|relation|stack/)
  } finally {
    await svc.deps.db.pool.query('ALTER TABLE access_tokens_away RENAME TO access_tokens')
  }
})

test('configuration: a bad value names the variable in one line; defaults apply', () => {
  const bad = loadConfig({ PORT: 'eighty' })
  assert.ok(E.isLeft(bad))
  assert.is(
    (bad as E.Left<string>).left,
    'Invalid configuration: PORT must be an integer between 0 and 65535 (got "eighty")',
  )
  const url = loadConfig({ DATABASE_URL: 'mysql://x' })
  assert.match((url as E.Left<string>).left, /^Invalid configuration: DATABASE_URL must be a postgres/)
  // No error prints a secret: connection strings lose their credentials, tokens are not shown.
  for (const [name, value, host] of [
    ['DATABASE_URL', 'mysql://root:hunter2@db.example/kb', 'db.example/kb'],
    ['EVENTSTORE_URL', 'esdbx://admin:s3c?r/et@es.example:2113', 'es.example:2113'],
    ['ELASTICSEARCH_URL', 'ftp://elastic:pa@ss@search.example', 'search.example'],
  ]) {
    const message = (loadConfig({ [name]: value }) as E.Left<string>).left
    assert.match(message, new RegExp(`^Invalid configuration: ${name} must be`))
    assert.ok(message.includes(host), message)
    for (const secret of ['hunter2', 's3c?r/et', 'pa@ss', 'root', 'admin', 'elastic'])
      assert.not.ok(message.includes(secret), message)
  }
  const token = (loadConfig({ KB_ADMIN_TOKEN: 'short-secret' }) as E.Left<string>).left
  assert.is(
    token,
    'Invalid configuration: KB_ADMIN_TOKEN must be at least 16 characters (got a value of 12 characters)',
  )
  const good = loadConfig({})
  assert.ok(E.isRight(good))
  assert.is((good as E.Right<any>).right.port, 3000)
  assert.is((good as E.Right<any>).right.dataDir, './data')
  assert.is((good as E.Right<any>).right.publicUrl, undefined)
  // The local model's threads: one per core unless EMBED_WORKERS says; an OpenAI model's length.
  assert.is((good as E.Right<any>).right.embedWorkers, undefined)
  assert.is((loadConfig({ EMBED_WORKERS: '3' }) as E.Right<any>).right.embedWorkers, 3)
  // The index that breaks search on purpose is for tests alone.
  assert.match(
    (loadConfig({ KB_TEST_GARBLED_INDEX: 'true' }) as E.Left<string>).left,
    /KB_TEST_GARBLED_INDEX breaks search on purpose, for tests \(NODE_ENV=test\) only/,
  )
  assert.is(
    (loadConfig({ KB_TEST_GARBLED_INDEX: 'true', NODE_ENV: 'test' }) as E.Right<any>).right.testGarbledIndex,
    true,
  )
  assert.match(
    (loadConfig({ EMBED_WORKERS: '0' }) as E.Left<string>).left,
    /^Invalid configuration: EMBED_WORKERS must be an integer between 1 and 256/,
  )
  assert.is((good as E.Right<any>).right.embeddingDimensions, 1536)
  assert.is((loadConfig({ EMBEDDING_DIMENSIONS: '3072' }) as E.Right<any>).right.embeddingDimensions, 3072)
  assert.match(
    (loadConfig({ PUBLIC_URL: 'kb.example.com' }) as E.Left<string>).left,
    /^Invalid configuration: PUBLIC_URL must be an http:\/\/ or https:\/\/ URL/,
  )
  assert.is(
    (loadConfig({ PUBLIC_URL: 'https://example.com/kb/' }) as E.Right<any>).right.publicUrl,
    'https://example.com/kb',
  )
  // Roles: all by default; a part of the service needs the shared database and broker.
  assert.equal((good as E.Right<any>).right.roles, ['api', 'projector', 'worker', 'scheduler'])
  assert.match(
    (loadConfig({ KB_ROLE: 'api,gateway' }) as E.Left<string>).left,
    /^Invalid configuration: KB_ROLE must be a comma list of api, projector, worker, scheduler/,
  )
  assert.match(
    (loadConfig({ KB_ROLE: 'api' }) as E.Left<string>).left,
    /KB_ROLE api runs part of the service, so the processes share one database and one broker: set DATABASE_URL/,
  )
  assert.match(
    (loadConfig({ EVENTSTORE_URL: 'http://es:2113' }) as E.Left<string>).left,
    /^Invalid configuration: EVENTSTORE_URL must be an EventStoreDB connection string/,
  )
  assert.is(
    (loadConfig({ EVENTSTORE_URL: 'esdb://es:2113?tls=false' }) as E.Right<any>).right.eventStoreUrl,
    'esdb://es:2113?tls=false',
  )
  assert.is((loadConfig({ EVENTSTORE_URL: '' }) as E.Right<any>).right.eventStoreUrl, undefined, 'empty is unset')
  assert.match(
    (loadConfig({ ELASTICSEARCH_URL: 'es:9200' }) as E.Left<string>).left,
    /^Invalid configuration: ELASTICSEARCH_URL must be an http:\/\/ or https:\/\/ URL/,
  )
  assert.is(
    (loadConfig({ ELASTICSEARCH_URL: 'http://elasticsearch:9200' }) as E.Right<any>).right.elasticsearchUrl,
    'http://elasticsearch:9200',
  )
  const server = { DATABASE_URL: 'postgres://h/db', AMQP_URL: 'amqp://h' }
  assert.equal((loadConfig({ ...server, KB_ROLE: ' worker , api,worker' }) as E.Right<any>).right.roles, [
    'worker',
    'api',
  ])
})

test('admin streams: a stream by its id, or an entry, page or task by its bare id; unknown ids are 404', async ({
  svc,
}) => {
  const m = await seedMember(svc.call)
  const entry = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'Wombats', content: 'Wombats dig.', source: 'text' },
    }),
    201,
  )
  const named = ok(await svc.call('GET', `/api/v1/admin/streams/entry-${entry.id}`, { token: ADMIN }))
  assert.equal([named.streamId, named.events[0].type], [`entry-${entry.id}`, 'EntryCreated'])
  const bare = ok(await svc.call('GET', `/api/v1/admin/streams/${entry.id}`, { token: ADMIN }))
  assert.equal([bare.streamId, bare.events.length], [`entry-${entry.id}`, named.events.length])
  expectError(await svc.call('GET', '/api/v1/admin/streams/no-such-thing', { token: ADMIN }), 404, 'NOT_FOUND')
  expectError(await svc.call('GET', `/api/v1/admin/streams/page-${entry.id}`, { token: ADMIN }), 404, 'NOT_FOUND')
})

test.run()
