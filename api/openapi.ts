import * as t from 'io-ts'
import type { AnswerCodec } from './answers'
import { jsonSchemas } from './codecs'
import { type AnyRoute, bodyTypes } from './route'

type Schema = Record<string, unknown>

/** A JSON Schema for the codecs the routes use: io-ts's own, and ours (api/codecs.ts), which carry theirs. */
export const schemaOf = (codec: t.Mixed): Schema => {
  const own = jsonSchemas.get(codec)
  if (codec instanceof t.RefinementType) return { ...schemaOf(codec.type), ...own }
  if (own) return own
  if (codec instanceof t.ExactType || codec instanceof t.ReadonlyType) return schemaOf(codec.type)
  if (codec instanceof t.InterfaceType) return objectSchema(codec.props, Object.keys(codec.props))
  if (codec instanceof t.PartialType) return objectSchema(codec.props, [])
  if (codec instanceof t.IntersectionType) {
    const parts = (codec.types as t.Mixed[]).map(schemaOf)
    const required = parts.flatMap((p) => (p.required as string[]) ?? [])
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
      ...(required.length ? { required } : {}),
    }
  }
  if (codec instanceof t.KeyofType) return { type: 'string', enum: Object.keys(codec.keys) }
  if (codec instanceof t.LiteralType) return { const: codec.value }
  if (codec instanceof t.NullType) return { type: 'null' }
  if (codec instanceof t.UnionType) return { anyOf: (codec.types as t.Mixed[]).map(schemaOf) }
  if (codec instanceof t.ArrayType) return { type: 'array', items: schemaOf(codec.type) }
  if (codec instanceof t.DictionaryType) return { type: 'object', additionalProperties: schemaOf(codec.codomain) }
  if (codec instanceof t.AnyDictionaryType) return { type: 'object' }
  if (codec instanceof t.StringType) return { type: 'string' }
  if (codec instanceof t.NumberType) return { type: 'number' }
  if (codec instanceof t.BooleanType) return { type: 'boolean' }
  return { description: codec.name }
}

export interface ObjectSchema {
  type: 'object'
  properties: Record<string, object>
  required?: string[]
}

/** A tool's arguments as JSON Schema, from the codec that checks them, with notes for the agent on some of them. */
export const inputSchemaOf = (codec: t.Mixed, notes: Record<string, object> = {}): ObjectSchema => {
  const schema = schemaOf(codec) as { properties?: Record<string, object>; required?: string[] }
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([k, v]) => [k, { ...v, ...notes[k] }]),
  )
  return { type: 'object', properties, ...(schema.required ? { required: schema.required } : {}) }
}

/** A tool's answer as JSON Schema, from the codec that encodes it (an object, as MCP asks of an outputSchema). */
export const outputSchemaOf = (codec: t.Mixed): ObjectSchema => {
  const schema = schemaOf(codec) as { properties?: Record<string, object>; required?: string[] }
  return {
    type: 'object',
    properties: schema.properties ?? {},
    ...(schema.required ? { required: schema.required } : {}),
  }
}

const objectSchema = (props: t.Props, required: string[]): Schema => ({
  type: 'object',
  properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, schemaOf(v as t.Mixed)])),
  ...(required.length ? { required } : {}),
})

const parameters = (codec: t.Mixed | undefined, where: 'path' | 'query') => {
  if (!codec) return []
  const schema = schemaOf(codec)
  const required = new Set((schema.required as string[]) ?? [])
  return Object.entries((schema.properties as Record<string, Schema>) ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: s,
  }))
}

/** Every GET takes it (api/route.ts). */
const SETTLE = {
  name: 'settle',
  in: 'query',
  required: false,
  description:
    'true: the answer counts every search answered before it (their records are appended after the answers, ' +
    'so cited counts may otherwise trail by a moment)',
  schema: { type: 'string', enum: ['true', 'false'] },
}

const security = { bearer: [{ bearerAuth: [] }], admin: [{ adminToken: [] }], apiKey: [{ apiKey: [] }], none: [] }

export const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** `post /api/v1/knowledge/{id}/move` -> `postKnowledgeByIdMove`. */
const operationId = (method: string, path: string) =>
  method +
  path
    .replace(/^\/api\/v1/, '')
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/^:(\w+)$/, 'by-$1').replace(/^native:/, ''))
    .map((part) =>
      part
        .split(/[^A-Za-z0-9]+/)
        .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
        .join(''),
    )
    .join('')

/** In a multipart form every field is a string: objects travel as JSON text, the file as bytes. */
const multipartSchema = (body: Schema): Schema => ({
  type: 'object',
  properties: {
    file: {
      type: 'string',
      contentMediaType: 'application/octet-stream',
      description: 'the file; its type is decided by its content',
    },
    ...Object.fromEntries(
      Object.entries((body.properties as Record<string, Schema>) ?? {}).map(([k, v]) => [
        k,
        v.type === 'object' || v.type === undefined
          ? {
              type: 'string',
              contentMediaType: 'application/json',
              description: `JSON: ${v.description ?? 'an object'}`,
            }
          : v,
      ]),
    ),
  },
  required: ['file', ...((body.required as string[]) ?? [])],
})

const requestBody = (r: AnyRoute) => {
  if (!r.body) return {}
  const schema = schemaOf(r.body)
  const content: Record<string, unknown> = {}
  for (const type of bodyTypes(r))
    content[type] = { schema: type === 'application/json' ? schema : multipartSchema(schema) }
  return {
    requestBody: {
      required: Boolean((schema.required as string[] | undefined)?.length) || r.multipart === 'only',
      content,
    },
  }
}

export const envelope = (code: string) => ({
  description: code,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Failure' } } },
})

/** A success envelope whose `data` the codec describes. */
export const successWith = (codec: AnswerCodec) => ({
  allOf: [
    { $ref: '#/components/schemas/Success' },
    { type: 'object', required: ['data'], properties: { data: schemaOf(codec) } },
  ],
})

/** The answers a route can give: success, and the failures its inputs, authentication and ids make possible. */
const responses = (r: AnyRoute) => ({
  '2XX': r.produces
    ? { description: r.produces.description, content: { [r.produces.type]: { schema: { type: 'string' } } } }
    : {
        description: 'Success (201 for a creation, 202 for queued work)',
        content: {
          'application/json': {
            schema: successWith(r.response as AnswerCodec),
          },
        },
      },
  ...(r.params || r.query || r.body ? { 400: envelope('VALIDATION_ERROR: details lists each field and reason') } : {}),
  ...(r.auth !== 'none' ? { 401: envelope('UNAUTHORIZED (no credentials) or INVALID_TOKEN') } : {}),
  ...(r.permission || r.managers
    ? { 403: envelope('FORBIDDEN (the role lacks the permission, or the knowledge base is disabled)') }
    : {}),
  ...(r.params ? { 404: envelope('NOT_FOUND: unknown id, or one of another workspace') } : {}),
  default: envelope(
    'Any other failure (CONFLICT and VERSION_CONFLICT 409, QUOTA_EXCEEDED 403, PAYLOAD_TOO_LARGE 413, RATE_LIMITED ' +
      '429, SERVICE_UNAVAILABLE 503, INTERNAL_ERROR 500)',
  ),
})

/** The OpenAPI 3.1 document, generated from the same route table the router mounts. */
export const openApiDocument = (routes: AnyRoute[], extra: Record<string, Record<string, unknown>> = {}) => {
  const paths: Record<string, Record<string, unknown>> = structuredClone(extra)
  for (const r of routes) {
    const p = (paths[toOpenApiPath(r.path)] ??= {})
    p[r.method] = {
      operationId: operationId(r.method, r.path),
      summary: r.summary,
      tags: [r.tag],
      security: security[r.auth],
      parameters: [
        ...parameters(r.params, 'path'),
        ...parameters(r.query, 'query'),
        ...(r.method === 'get' ? [SETTLE] : []),
      ],
      ...requestBody(r),
      responses: responses(r),
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Knowledge-base service',
      version: '1.0.0',
      description:
        'A multi-workspace knowledge base: entries, search, tasks, the brain (pages, review, packs) and agent tools. ' +
        'Every JSON answer uses the envelope { success, data } or { success, error: { code, message, details } }.',
    },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token of a workspace member' },
        adminToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'The admin token (KB_ADMIN_TOKEN or DATA_DIR/admin-token)',
        },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
      schemas: {
        Success: { type: 'object', required: ['success', 'data'], properties: { success: { const: true }, data: {} } },
        Failure: {
          type: 'object',
          required: ['success', 'error'],
          properties: {
            success: { const: false },
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                details: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
      },
    },
    paths,
  }
}
