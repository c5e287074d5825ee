import fs from 'node:fs'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createApp, routesOf } from '../../api/app'
import { surface } from '../../app/capabilities'
import { Validator } from '@seriousme/openapi-schema-validator'
import { toOpenApiPath } from '../../api/openapi'
import { newKey } from '../helpers/agents'
import { ADMIN, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API shell: the OpenAPI document')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

test('the OpenAPI 3.1 document lists every registered route', async ({ svc }) => {
  const doc = ok.call(null, {
    status: 200,
    body: { success: true, data: (await svc.call('GET', '/api/v1/openapi.json')).body },
    headers: new Headers(),
  })
  assert.is(doc.openapi, '3.1.0')
  const registered = new Set<string>()
  // The router's own table, not ours: a route mounted without a spec would be missed here.
  for (const layer of createApp(svc.deps, surface).router.stack) {
    for (const method of layer.methods.filter((m: string) => m !== 'HEAD'))
      registered.add(`${method.toLowerCase()} ${toOpenApiPath(String(layer.path))}`)
  }
  assert.ok(registered.size >= routesOf(surface).length)
  const key = await newKey(svc.call, (await seedMember(svc.call)).workspaceId, 'openapi-check')
  for (const route of registered) {
    const [method, path] = route.split(' ')
    if (doc.paths[path]?.[method]) continue
    // Mounted only to refuse (GET /mcp: no server-to-client stream), so not documented: it must say so.
    const r = await svc.call(method.toUpperCase(), path, { headers: { 'x-api-key': key.api_key } })
    assert.is(r.status, 405, `${route} is missing from openapi.json`)
    assert.ok(r.headers.get('allow'), `${route}: Allow names what is offered`)
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

/** A value for a path parameter that its schema accepts, standing for an id that does not exist. */
const placeholder = (schema: any) =>
  schema?.type === 'integer' || schema?.type === 'number' ? '1' : schema?.pattern ? 'placeholder-slug' : 'placeholder'

test('every documented method answers something other than 405 (placeholder ids, valid credentials)', async ({
  svc,
}) => {
  const doc = (await svc.call('GET', '/api/v1/openapi.json')).body
  const m = await seedMember(svc.call, 'owner')
  const key = (await newKey(svc.call, m.workspaceId, 'every-method')).api_key
  const credentials: Record<string, Record<string, string>> = {
    bearerAuth: { authorization: `Bearer ${m.token}` },
    adminToken: { authorization: `Bearer ${ADMIN}` },
    apiKey: { 'x-api-key': key },
  }
  const refused: string[] = []
  let called = 0
  for (const [template, ops] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      const path = template.replace(/\{(\w+)\}/g, (_, name) =>
        placeholder(op.parameters?.find((p: any) => p.in === 'path' && p.name === name)?.schema),
      )
      const scheme = Object.keys(op.security?.[0] ?? {})[0]
      const headers: Record<string, string> = { ...(scheme ? credentials[scheme] : {}) }
      const json = op.requestBody?.content?.['application/json']
      if (json) headers['content-type'] = 'application/json'
      // Streams (the events) answer their headers and go on: the status is all this needs.
      const abort = new AbortController()
      const res = await fetch(svc.url + path, {
        method: method.toUpperCase(),
        headers,
        body: json ? '{}' : undefined,
        signal: abort.signal,
      })
      abort.abort()
      called++
      if (res.status === 405) refused.push(`${method.toUpperCase()} ${template}`)
    }
  }
  assert.equal(refused, [], 'documented methods that answer 405')
  assert.ok(called >= 80, `${called} documented methods called`)
  // What the document says of MCP's GET is what the server does.
  assert.not.ok(doc.paths['/mcp'].get, 'GET /mcp (no event stream) is not documented as an operation')
  assert.match(doc.paths['/mcp'].post.description, /GET on this endpoint answers 405/)
  const get = await svc.call('GET', '/mcp', { headers: { 'x-api-key': key } })
  assert.equal([get.status, get.headers.get('allow')], [405, 'POST, DELETE'])
  const packGet = await svc.call('GET', '/packs/placeholder-slug/mcp')
  assert.is(packGet.status, 405)
  assert.match(doc.paths['/packs/{slug}/mcp'].post.description, /GET on this endpoint answers 405/)
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

test.run()
