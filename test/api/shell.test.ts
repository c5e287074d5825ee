import fs from 'node:fs'
import net from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as E from 'fp-ts/Either'
import { routes } from '../../api/app'
import { loadConfig } from '../../app/config'
import { Validator } from '@seriousme/openapi-schema-validator'
import { toOpenApiPath } from '../../api/openapi'
import { ADMIN, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API shell: envelope, errors, request ids, OpenAPI, configuration')
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

/**
 * Sends the head of a request declaring a 7 MB JSON body and 1 KB of it, then waits for an answer
 * while the rest is still unsent; answers the response head and whether the server closed.
 */
const answeredBeforeBody = (url: string, method: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ head: string; closed: boolean }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port), hostname)
    let received = ''
    let closed = false
    const timer = setTimeout(() => reject(new Error(`no answer while the body was unsent: ${received}`)), 5000)
    socket.on('data', (d) => {
      received += d.toString('latin1')
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      closed = true
      clearTimeout(timer)
      resolve({ head: received.split('\r\n\r\n')[0], closed })
    })
    const head = [
      `${method} ${path} HTTP/1.1`,
      `Host: ${hostname}`,
      'Content-Type: application/json',
      'Content-Length: 7000000',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n')
    socket.write(head + `{"name": "${'x'.repeat(1024)}`)
  })

test('no credentials, or no such route: answered before the body is read, and the connection closed', async ({
  svc,
}) => {
  for (const [method, path, headers, status] of [
    ['POST', '/api/v1/knowledge', {}, '401'],
    ['POST', '/api/v1/knowledge', { Authorization: 'Bearer not-a-token' }, '401'],
    ['POST', '/api/v1/admin/users', { Authorization: 'Bearer wrong' }, '401'],
    ['POST', '/mcp', {}, '401'],
    ['POST', '/api/v1/no-such-route', {}, '404'],
    ['POST', '/health', {}, '405'],
  ] as const) {
    const { head, closed } = await answeredBeforeBody(svc.url, method, path, headers)
    assert.match(head, new RegExp(`^HTTP/1.1 ${status} `), `${method} ${path}: ${head}`)
    assert.match(head, /\r\nconnection: close/i, `${method} ${path}: ${head}`)
    assert.ok(closed)
  }
  // Health still answers at once.
  ok(await svc.call('GET', '/health'))
})

/** Writes raw bytes to the service and answers the status line and body of its answer. */
const rawExchange = (url: string, bytes: Buffer) =>
  new Promise<{ head: string; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port), hostname)
    let received = ''
    socket.on('data', (d) => (received += d.toString('utf8')))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head, ...body] = received.split('\r\n\r\n')
      resolve({ head, body: body.join('\r\n\r\n') })
    })
    socket.end(bytes)
  })

test(
  'rough input at the edge is refused with 400 in the envelope: NUL or bad escapes in a path, bytes that ' +
    'are not UTF-8, a malformed request',
  async ({ svc }) => {
    const m = await seedMember(svc.call)
    for (const [method, path] of [
      ['GET', '/packs/x%00y'],
      ['POST', '/packs/x%00y/mcp'],
      ['GET', '/api/v1/knowledge/%00'],
      ['GET', '/api/v1/knowledge/%E0%A4%A'],
    ] as const) {
      const e = expectError(
        await svc.call(method, path, { token: m.token, ...(method === 'POST' ? { body: {} } : {}) }),
        400,
        'VALIDATION_ERROR',
      )
      assert.match(e.details![0], /^\(path\): /, `${method} ${path}`)
    }
    const before = ok(await svc.call('GET', '/api/v1/knowledge', { token: m.token })).total
    const latin1 = Buffer.concat([
      Buffer.from('{"title":"Caf'),
      Buffer.from([0xe9]),
      Buffer.from('","content":"x","source":"text"}'),
    ])
    const res = await fetch(`${svc.url}/api/v1/knowledge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
      body: latin1,
    })
    assert.is(res.status, 400)
    assert.equal((await res.json()).error.details, ['(body): holds bytes that are not UTF-8'])
    assert.is(ok(await svc.call('GET', '/api/v1/knowledge', { token: m.token })).total, before, 'nothing stored')
    const malformed = await rawExchange(svc.url, Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n'))
    assert.match(malformed.head, /^HTTP\/1.1 400 /)
    assert.is(JSON.parse(malformed.body).error.code, 'VALIDATION_ERROR')
  },
)

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

test('the OpenAPI 3.1 document lists every registered route', async ({ svc }) => {
  const doc = ok.call(null, {
    status: 200,
    body: { success: true, data: (await svc.call('GET', '/api/v1/openapi.json')).body },
    headers: new Headers(),
  })
  assert.is(doc.openapi, '3.1.0')
  const registered = new Set<string>()
  // The router's own table, not ours: a route mounted without a spec would be missed here.
  for (const layer of (await import('../../api/app')).createApp(svc.deps).router.stack) {
    for (const method of layer.methods.filter((m: string) => m !== 'HEAD'))
      registered.add(`${method.toLowerCase()} ${toOpenApiPath(String(layer.path))}`)
  }
  assert.ok(registered.size >= routes.length)
  for (const key of registered) {
    const [method, path] = key.split(' ')
    assert.ok(doc.paths[path]?.[method], `${key} is missing from openapi.json`)
  }
})

test('the OpenAPI document is valid OpenAPI 3.1, and every JSON answer describes its data', async ({ svc }) => {
  const doc = (await svc.call('GET', '/api/v1/openapi.json')).body
  const validator = new Validator()
  const result = await validator.validate(structuredClone(doc))
  assert.ok(result.valid, String(JSON.stringify(result.errors)).slice(0, 2000))
  assert.is(validator.version, '3.1')
  const json = Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops)
      .map(([method, op]) => ({ at: `${method} ${path}`, content: op.responses?.['2XX']?.content }))
      .filter((r) => r.content?.['application/json']),
  )
  const undescribed = json
    .filter(({ content }) => {
      const data = content['application/json'].schema.allOf?.[1]?.properties?.data
      return !data || Object.keys(data).length === 0
    })
    .map((r) => r.at)
  assert.equal(undescribed, [])
  assert.ok(json.length >= 70, `${json.length} JSON answers`)
  const entry = doc.paths['/api/v1/knowledge/{id}'].get.responses['2XX'].content['application/json'].schema
  assert.ok(JSON.stringify(entry).includes('"processingStatus"'), 'an entry answer names its fields')
  const health = doc.paths['/health'].get.responses['2XX'].content['application/json'].schema
  assert.ok(JSON.stringify(health).includes('"dependencies"'), "the health answer's data is described too")
})

test("the console's API types are generated from this document (web/src/schema.d.ts is up to date)", async () => {
  const { SCHEMA_TYPES, schemaTypes } = await import('../../scripts/openapi')
  assert.ok(
    fs.readFileSync(SCHEMA_TYPES, 'utf8') === (await schemaTypes()),
    `${SCHEMA_TYPES} is stale: run npm run build:console`,
  )
})

test(
  'the OpenAPI document describes what the service does: body schemas with bounds, query parameters, media ' +
    'types, path parameters',
  async ({ svc }) => {
    const doc = (await svc.call('GET', '/api/v1/openapi.json')).body
    const ids = new Set<string>()
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        assert.type(op.operationId, 'string', `${method} ${path}`)
        assert.not.ok(ids.has(op.operationId), `operationId ${op.operationId} twice`)
        ids.add(op.operationId)
        for (const name of (path.match(/\{\w+\}/g) ?? []).map((p) => p.slice(1, -1))) {
          assert.ok(
            op.parameters?.some((p: any) => p.in === 'path' && p.name === name && p.required),
            `${method} ${path}: path parameter ${name}`,
          )
        }
        assert.ok(op.responses?.default, `${method} ${path}: responses`)
      }
    }
    const create = doc.paths['/api/v1/knowledge'].post
    const json = create.requestBody.content['application/json'].schema
    assert.is(json.type, 'object')
    // A title is required unless a file gives one by its name: the handler checks it, with the source at hand.
    assert.equal(json.required, ['source'])
    assert.is(json.properties.title.maxLength, 500)
    assert.equal(json.properties.chunkingOptions.properties.chunkSizeTokens, {
      type: 'integer',
      minimum: 100,
      maximum: 2000,
      description: 'an integer between 100 and 2000',
    })
    assert.ok(create.requestBody.content['multipart/form-data'].schema.required.includes('file'))
    assert.equal(create.responses['401'].content['application/json'].schema, { $ref: '#/components/schemas/Failure' })
    assert.equal(Object.keys(doc.paths['/api/v1/knowledge/upload/file'].post.requestBody.content), [
      'multipart/form-data',
    ])
    const listPages = doc.paths['/api/v1/pages'].get.parameters.map((p: any) => p.name).sort()
    // Every GET also takes settle (exact cited counts).
    assert.equal(listPages, ['collectionId', 'limit', 'page', 'search', 'settle', 'state'])
    assert.equal(doc.paths['/mcp'].post.security, [{ apiKey: [] }])
    // The bounds it documents are the ones the service holds: the folder name's maxLength.
    const max =
      doc.paths['/api/v1/knowledge/folders'].post.requestBody.content['application/json'].schema.properties.name
        .maxLength
    const m = await seedMember(svc.call)
    ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'n'.repeat(max) } }), 201)
    expectError(
      await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'm'.repeat(max + 1) } }),
      400,
      'VALIDATION_ERROR',
    )
    // A JSON body where only a multipart form can carry the file: told so.
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge/upload/file', { token: m.token, body: { title: 'x' } }),
      400,
      'VALIDATION_ERROR',
    )
    assert.equal(e.details, ['body: send it with Content-Type: multipart/form-data'])
  },
)

test('configuration: a bad value names the variable in one line; defaults apply', () => {
  const bad = loadConfig({ PORT: 'eighty' })
  assert.ok(E.isLeft(bad))
  assert.is(
    (bad as E.Left<string>).left,
    'Invalid configuration: PORT must be an integer between 0 and 65535 (got "eighty")',
  )
  const url = loadConfig({ DATABASE_URL: 'mysql://x' })
  assert.match((url as E.Left<string>).left, /^Invalid configuration: DATABASE_URL must be a postgres/)
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
