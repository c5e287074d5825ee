import * as t from 'io-ts'
import type { AnyRoute } from './route'

type Schema = Record<string, unknown>

/** A JSON Schema for the codecs the routes use; refinements fall back to their base type and name. */
export const schemaOf = (codec: t.Mixed): Schema => {
  if (codec instanceof t.InterfaceType) return objectSchema(codec.props, Object.keys(codec.props))
  if (codec instanceof t.PartialType) return objectSchema(codec.props, [])
  if (codec instanceof t.IntersectionType) {
    const parts = (codec.types as t.Mixed[]).map(schemaOf)
    return {
      type: 'object',
      properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
      required: parts.flatMap((p) => (p.required as string[]) ?? []),
    }
  }
  if (codec instanceof t.KeyofType) return { type: 'string', enum: Object.keys(codec.keys) }
  if (codec instanceof t.LiteralType) return { const: codec.value }
  if (codec instanceof t.UnionType) return { anyOf: (codec.types as t.Mixed[]).map(schemaOf) }
  if (codec instanceof t.ArrayType) return { type: 'array', items: schemaOf(codec.type) }
  if (codec instanceof t.DictionaryType) return { type: 'object', additionalProperties: schemaOf(codec.codomain) }
  if (codec instanceof t.StringType) return { type: 'string' }
  if (codec instanceof t.NumberType) return { type: 'number' }
  if (codec instanceof t.BooleanType) return { type: 'boolean' }
  const name = codec.name
  if (/integer/.test(name)) return { type: 'integer', description: name }
  if (/true or false/.test(name)) return { type: 'boolean', description: name }
  if (/string|email|slug|id/.test(name)) return { type: 'string', description: name }
  return { description: name }
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

const security = { bearer: [{ bearerAuth: [] }], admin: [{ adminToken: [] }], apiKey: [{ apiKey: [] }], none: [] }

export const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}')

/** The OpenAPI 3.1 document, generated from the same route table the router mounts. */
export const openApiDocument = (routes: AnyRoute[], extra: Record<string, Record<string, unknown>> = {}) => {
  const paths: Record<string, Record<string, unknown>> = structuredClone(extra)
  for (const r of routes) {
    const p = (paths[toOpenApiPath(r.path)] ??= {})
    p[r.method] = {
      summary: r.summary,
      tags: [r.tag],
      security: security[r.auth],
      parameters: [...parameters(r.params, 'path'), ...parameters(r.query, 'query')],
      ...(r.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(r.body) } } } } : {}),
      responses: {
        default: { description: 'The envelope: { success: true, data } or { success: false, error: { code, message, details? } }' },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Knowledge-base service', version: '1.0.0', description: 'See SPEC.md; every JSON answer uses the success/error envelope.' },
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'An access token of a workspace member' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (KB_ADMIN_TOKEN or DATA_DIR/admin-token)' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
    },
    paths,
  }
}
