import http from 'node:http'
import type net from 'node:net'

/**
 * A local server speaking the part of Elasticsearch's REST API the text index's writes and builds use, for
 * the official client (@elastic/elasticsearch 8): indices created and deleted, one alias per index moved
 * atomically, bulk writes with `external_gte` versions and `require_alias`, refresh. It keeps documents in
 * memory so a test can read what each index holds. No search: a test that searches answers it itself.
 */

export interface EsRequest {
  method: string
  /** The path without the query string. */
  path: string
  query: URLSearchParams
  body: string
}

export interface EsAnswer {
  status?: number
  body: unknown
}

/**
 * Runs before the fake answers: an answer of the test's own (a fault), or undefined to let the request
 * through (after a wait, when the test holds it).
 */
export type Intercept = (request: EsRequest) => EsAnswer | undefined | Promise<EsAnswer | undefined>

interface Doc {
  version: number
  source: Record<string, unknown>
}

type Meta = { _index: string; _id: string; version?: number; require_alias?: boolean }

const notFound = (type: string, reason: string): EsAnswer => ({
  status: 404,
  body: { error: { root_cause: [{ type, reason }], type, reason }, status: 404 },
})

export const fakeElasticsearch = async (intercept?: Intercept) => {
  const indices = new Map<string, Map<string, Doc>>()
  /** Alias → the one index behind it. */
  const aliases = new Map<string, string>()
  const requests: EsRequest[] = []

  const bulkItem = (op: string, meta: Meta, source: Record<string, unknown> | undefined) => {
    const alias = aliases.get(meta._index)
    if (!alias && meta.require_alias) {
      const reason = `no such index [${meta._index}] and [require_alias] request flag is [true]`
      return { status: 404, error: { type: 'index_not_found_exception', reason } }
    }
    const index = alias ?? meta._index
    // Like Elasticsearch with automatic index creation on: a write to a name nothing holds makes the index.
    if (!indices.has(index)) indices.set(index, new Map())
    const docs = indices.get(index)!
    const current = docs.get(meta._id)
    const version = meta.version ?? (current?.version ?? 0) + 1
    const head = { _index: index, _id: meta._id }
    if (current && current.version > version) {
      const reason = `[${meta._id}]: version conflict, current version [${current.version}] is higher than [${version}]`
      return { ...head, status: 409, error: { type: 'version_conflict_engine_exception', reason } }
    }
    if (op === 'delete') {
      if (!current) return { ...head, status: 404, result: 'not_found' }
      docs.delete(meta._id)
      return { ...head, status: 200, result: 'deleted' }
    }
    docs.set(meta._id, { version, source: source ?? {} })
    return { ...head, status: current ? 200 : 201, result: current ? 'updated' : 'created' }
  }

  const bulk = (body: string): EsAnswer => {
    const lines = body
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l))
    const items: Array<Record<string, unknown>> = []
    for (let i = 0; i < lines.length; i++) {
      const [op, meta] = Object.entries(lines[i])[0] as [string, Meta]
      const source = op === 'delete' ? undefined : lines[++i]
      items.push({ [op]: bulkItem(op, meta, source) })
    }
    const errors = items.some((item) => Object.values(item).some((r) => (r as { error?: unknown }).error))
    return { body: { took: 1, errors, items } }
  }

  const moveAliases = (actions: Array<Record<string, { index: string; alias: string }>>): EsAnswer => {
    for (const action of actions) {
      const [op, { index, alias }] = Object.entries(action)[0]
      if (!indices.has(index)) return notFound('index_not_found_exception', `no such index [${index}]`)
      if (op === 'remove' && aliases.get(alias) !== index)
        return notFound('aliases_not_found_exception', `aliases [${alias}] missing`)
    }
    for (const action of actions) {
      const [op, { index, alias }] = Object.entries(action)[0]
      if (op === 'add') aliases.set(alias, index)
      else aliases.delete(alias)
    }
    return { body: { acknowledged: true } }
  }

  const handle = ({ method, path, query, body }: EsRequest): EsAnswer => {
    const parts = path.split('/').filter(Boolean).map(decodeURIComponent)
    if (method === 'POST' && path === '/_bulk') return bulk(body)
    if (method === 'POST' && path === '/_aliases') return moveAliases(JSON.parse(body).actions)
    if (parts.at(-1) === '_refresh') return { body: { _shards: { total: 1, successful: 1, failed: 0 } } }
    if (method === 'GET' && parts[0] === '_alias') {
      const index = aliases.get(parts[1])
      if (!index) return { status: 404, body: { error: `alias [${parts[1]}] missing`, status: 404 } }
      return { body: { [index]: { aliases: { [parts[1]]: {} } } } }
    }
    if (method === 'PUT' && parts.length === 1) {
      if (indices.has(parts[0]) || aliases.has(parts[0])) {
        const type = 'resource_already_exists_exception'
        return { status: 400, body: { error: { type, reason: `index [${parts[0]}] already exists` }, status: 400 } }
      }
      indices.set(parts[0], new Map())
      return { body: { acknowledged: true, shards_acknowledged: true, index: parts[0] } }
    }
    if (method === 'DELETE' && parts.length === 1) {
      const names = parts[0].split(',')
      const absent = names.find((n) => !indices.has(n))
      if (absent && query.get('ignore_unavailable') !== 'true')
        return notFound('index_not_found_exception', `no such index [${absent}]`)
      for (const name of names) {
        indices.delete(name)
        for (const [alias, index] of aliases) if (index === name) aliases.delete(alias)
      }
      return { body: { acknowledged: true } }
    }
    return { status: 400, body: { error: `the fake does not answer ${method} ${path}`, status: 400 } }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://fake')
      const request = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body: '' }
      request.body = Buffer.concat(chunks).toString('utf8')
      requests.push(request)
      const answer = (await intercept?.(request)) ?? handle(request)
      res.statusCode = answer.status ?? 200
      res.setHeader('x-elastic-product', 'Elasticsearch')
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    indices,
    aliases,
    /** Every request received, in order. */
    requests,
    /** The bulk requests received. */
    bulks: () => requests.filter((r) => r.method === 'POST' && r.path === '/_bulk'),
    /** A document's source as the index (or the index behind the alias) holds it. */
    doc: (name: string, id: string) => indices.get(aliases.get(name) ?? name)?.get(id)?.source,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export type FakeElasticsearch = Awaited<ReturnType<typeof fakeElasticsearch>>
