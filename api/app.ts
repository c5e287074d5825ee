import { randomUUID } from 'node:crypto'
import Router from '@koa/router'
import Koa from 'koa'
import type { Deps } from './deps'
import { AppendTooLarge } from '../adapters/eventstore/port'
import { DependencyUnavailable } from '../adapters/unavailable'
import { ApiError, envelopeOf, statusOf } from './errors'
import { envelope, openApiDocument, successWith } from './openapi'
import { type AnyRoute, mount } from './route'
import { toolRoutes } from './routes/tools'
import { Health } from './routes/answers'
import { mountHealth } from './routes/health'
import { operatorRoutes } from './routes/operators'
import { NO_MCP_STREAM } from './mcp'
import { mountMcp } from './mcpEndpoint'
import { consoleOpenApi, mountConsole } from './console'
import type { Tool } from './tools'

/**
 * What the capabilities serve over HTTP, as the service composes them: their routes and tools, and the
 * endpoints they mount outside the route table (OAuth's, packs') with those endpoints' OpenAPI paths.
 */
export interface Surface {
  routes: AnyRoute[]
  tools: Tool[]
  mounts: { mount: (router: Router, deps: Deps) => void; openApi: Record<string, unknown> }[]
}

/** Every route of the API: the operators' and tools' routes every capability shares, then the capabilities'. */
export const routesOf = (surface: Surface): AnyRoute[] => [
  ...operatorRoutes,
  ...toolRoutes(surface.tools),
  ...surface.routes,
]

const apiKey = [{ apiKey: [] }]
/** The service's OpenAPI document: the route table's, with the endpoints mounted outside it. */
export const serviceOpenApi = (surface: Surface) =>
  openApiDocument(routesOf(surface), {
    ...openApiExtra,
    ...consoleOpenApi,
    ...Object.assign({}, ...surface.mounts.map((m) => m.openApi)),
  })

export const openApiExtra = {
  '/health': {
    get: {
      operationId: 'getHealth',
      summary: 'Readiness and dependency states',
      tags: ['health'],
      security: [],
      responses: {
        '2XX': {
          description: 'Ready',
          content: {
            'application/json': {
              schema: successWith(Health),
            },
          },
        },
        503: envelope('SERVICE_UNAVAILABLE: not ready, or a dependency is down (details: the dependencies)'),
        default: envelope('INTERNAL_ERROR 500'),
      },
    },
  },
  '/api/v1/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['meta'],
      security: [],
      responses: { default: { description: 'OpenAPI 3.1' } },
    },
  },
  '/mcp': {
    post: {
      operationId: 'postMcp',
      summary: 'MCP over Streamable HTTP (x-api-key): page and knowledge tools, skills as prompts',
      description: NO_MCP_STREAM,
      tags: ['mcp'],
      security: apiKey,
      responses: { default: { description: 'JSON-RPC' } },
    },
    delete: {
      operationId: 'deleteMcp',
      summary: 'End an MCP session',
      tags: ['mcp'],
      security: apiKey,
      responses: { default: { description: 'empty' } },
    },
  },
}

/** Errors of a response stream whose client closed the connection. */
const CLIENT_GONE = new Set(['ERR_STREAM_PREMATURE_CLOSE', 'ECONNRESET', 'EPIPE', 'ECONNABORTED'])

const requestIdOf = (header: string | undefined) => (header && /^[\w.-]{1,64}$/.test(header) ? header : randomUUID())

export const createApp = (deps: Deps, surface: Surface) => {
  const app = new Koa()
  app.proxy = false

  // Request id, one log line per request, and the one place failures become the envelope.
  // What Koa itself reports (a response stream that failed after answering) is logged like the rest.
  app.silent = true
  // A client that hangs up before its answer ended (every event-stream client does sooner or
  // later) is no fault of the service's: logged as a departure, not as an error.
  app.on('error', (error: Error & { code?: string }, ctx?: Koa.Context) => {
    const log = ctx?.state.log ?? deps.log
    if (CLIENT_GONE.has(error.code ?? '') || ctx?.req.destroyed)
      log.info(
        { method: ctx?.method, path: ctx?.path, code: error.code },
        'the client went away before the answer ended',
      )
    else log.error({ err: error }, 'request failed')
  })

  app.use(async (ctx, next) => {
    const requestId = requestIdOf(ctx.get('x-request-id'))
    const started = process.hrtime.bigint()
    ctx.state.requestId = requestId
    ctx.state.log = deps.log.child({ requestId })
    ctx.set('x-request-id', requestId)
    try {
      checkPath(ctx.path)
      await next()
      // MCP transports write their own answers (ctx.respond = false).
      const unanswered = ctx.respond !== false && ctx.body === undefined
      if (unanswered && ctx.status === 404) throw new ApiError('NOT_FOUND', `no route ${ctx.method} ${ctx.path}`)
      if (unanswered && (ctx.status === 405 || ctx.status === 501)) {
        throw new ApiError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`)
      }
    } catch (error) {
      if (ctx.res.headersSent) ctx.state.log.error({ err: error }, 'failed after answering')
      else writeError(ctx, error)
    }
    // An answer given before the body was read (no credentials, no such route, too large) ends
    // the connection: the rest of the body is discarded, not parsed.
    if (!ctx.req.complete && !ctx.res.headersSent) ctx.set('Connection', 'close')
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    ctx.state.log.info(
      { method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 },
      'request',
    )
  })

  const router = new Router()
  mountHealth(router, deps)
  // A process without the api role answers its health only (for its orchestrator).
  const serves = deps.process.roles.includes('api')
  if (serves) {
    const document = serviceOpenApi(surface)
    router.get('/api/v1/openapi.json', (ctx) => {
      ctx.body = document
    })
    mount(router, deps, routesOf(surface))
    for (const { mount } of surface.mounts) mount(router, deps)
    mountConsole(router)
  }
  const mcp = serves ? mountMcp(router, deps, surface.tools) : { close: async () => undefined }
  app.use(router.routes())
  app.use(router.allowedMethods())
  return { app, router, close: mcp.close }
}

/** A path no route could take: NUL (which Postgres text cannot hold) or broken percent-encoding. */
const checkPath = (path: string) => {
  let decoded: string
  try {
    decoded = decodeURIComponent(path)
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'the request is not valid', ['(path): is not valid percent-encoded UTF-8'])
  }
  if (decoded.includes('\u0000'))
    throw new ApiError('VALIDATION_ERROR', 'the request is not valid', ['(path): must not contain NUL characters'])
}

/** How long a client is told to wait when a dependency is down. */
const RETRY_AFTER_SECONDS = 5

const writeError = (ctx: Koa.Context, error: unknown) => {
  let apiError: ApiError
  if (error instanceof ApiError) apiError = error
  else if (error instanceof AppendTooLarge) apiError = new ApiError('PAYLOAD_TOO_LARGE', error.message)
  else if (error instanceof DependencyUnavailable) {
    // A dependency down (the file store at an upload): nothing was written; the client tries again.
    // What it said stays in the log (it names hosts and ports).
    ctx.state.log?.warn({ err: error }, 'a dependency is unavailable')
    apiError = new ApiError(
      'SERVICE_UNAVAILABLE',
      `${error.dependency} is unavailable; retry in ${RETRY_AFTER_SECONDS} s`,
      undefined,
      { 'Retry-After': String(RETRY_AFTER_SECONDS) },
    )
  } else {
    const status =
      (error as { status?: number; statusCode?: number })?.status ?? (error as { statusCode?: number })?.statusCode
    if (status === 413) {
      const limit = (error as { limit?: number }).limit
      apiError = new ApiError('PAYLOAD_TOO_LARGE', `the request body is over ${limit ? `${limit} bytes` : 'the limit'}`)
    } else if (status === 400 || status === 415 || status === 422) {
      apiError = new ApiError('VALIDATION_ERROR', 'the request body is not valid JSON', [
        '(body): must be a JSON object',
      ])
    } else {
      ctx.state.log?.error({ err: error }, 'unhandled error')
      apiError = new ApiError('INTERNAL_ERROR', 'an internal error occurred; it has been logged')
    }
  }
  for (const [k, v] of Object.entries(apiError.headers ?? {})) ctx.set(k, v)
  ctx.status = statusOf(apiError.code)
  ctx.body = envelopeOf(apiError.code, apiError.message, apiError.details)
}
