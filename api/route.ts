import { randomUUID } from 'node:crypto'
import type { Readable } from 'node:stream'
import type Router from '@koa/router'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Context } from 'koa'
import type { CommandContext } from '../commands/handle'
import { type DomainError, type Permission, managesWorkspace } from '../domain/shared'
import { type AuthMode, type Identity, authenticate, authorize } from './auth'
import { readJson } from './body'
import type { Deps } from './deps'
import { settleCitations, takeSettle } from './settle'
import { ApiError } from './errors'
import { decode, inputProblems, propsOf } from './validation'
import { type AnswerCodec, encodeAnswer } from './answers'

export interface Reply {
  data?: unknown
  status?: number
  /** Position of the events the request appended: the answer waits for the read models to reach it. */
  position?: number
  /**
   * After a write: the answer is what this finds once the read models reached `position` (told
   * whether they did, or the wait gave up first).
   */
  read?: (caughtUp: boolean) => Promise<unknown>
  headers?: Record<string, string>
  /** A body streamed as it is made (Server-Sent Events): sent as the route's `produces` type. */
  stream?: Readable
}

export interface HandlerInput<P, Q, B> {
  params: P
  query: Q
  body: B
  identity: Identity
  /** Metadata for the commands the handler sends. */
  command: CommandContext
  /** Query parameters the codec does not name that the route takes (`extraQuery`), as sent. */
  extraQuery: Record<string, unknown>
  /** Where the client reached the service (scheme and host), for links the answer hands out. */
  origin: string
  /** A request header (`last-event-id`), as sent. */
  header: (name: string) => string | undefined
}

/** The services a handler names in `uses`, and only those. */
export type Uses<D extends keyof Deps> = Pick<Deps, D>

/** The request as a route's own hooks see it: the Koa context and who asks. */
export interface RouteRequest {
  ctx: Context
  identity: Identity
}

/** No more than the common input. */
type NoExtras = Record<never, never>

export interface RouteSpec<P = unknown, Q = unknown, B = unknown, D extends keyof Deps = never, X = NoExtras> {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete'
  path: string
  summary: string
  tag: string
  auth: AuthMode
  permission?: Permission
  /** Only the workspace's owners and admins: a member of another role is refused with this message. */
  managers?: string
  params?: t.Type<P, unknown, unknown>
  query?: t.Type<Q, unknown, unknown>
  body?: t.Type<B, unknown, unknown>
  /** The body may also (or must) be a multipart form, read by `before` into the body the codec decodes. */
  multipart?: 'also' | 'only'
  /**
   * The codec of the answer's `data`: the answer is encoded by it (nothing it does not declare is
   * sent) and the OpenAPI document describes it. Every JSON route has one.
   */
  response?: AnswerCodec
  /** A success answered as a stream of this media type instead of JSON (the handler's `stream`). */
  produces?: { type: string; description: string }
  /** Query parameters the codec does not name that the route still takes (`externalRef.<key>`). */
  extraQuery?: (name: string) => boolean
  /**
   * Runs after authorisation and before decoding (a capability's own reading of the request: a
   * multipart body, an upload's count). What it takes is given back if the request is then refused
   * (`ctx.state.refund`).
   */
  before?: (request: RouteRequest, deps: Deps) => Promise<void>
  /** What the handler is given beyond the common input, made per request (an upload, its workspace's settings). */
  extras?: (request: RouteRequest, deps: Deps) => X
  /** The services the handler is given (the rest of the service is out of its reach). */
  uses?: readonly D[]
  handler: (input: HandlerInput<P, Q, B> & X, deps: Uses<D>) => Promise<E.Either<DomainError, Reply>>
}

export type AnyRoute = RouteSpec<any, any, any, keyof Deps, any>

export const route = <P = unknown, Q = unknown, B = unknown, D extends keyof Deps = never, X = NoExtras>(
  spec: RouteSpec<P, Q, B, D, X>,
): AnyRoute => {
  // Nothing leaves the service that its answer's codec does not declare: a route without one is a bug.
  if (!spec.response === !spec.produces)
    throw new Error(
      `${spec.method.toUpperCase()} ${spec.path}: declare either the answer's codec or the stream it produces`,
    )
  return spec as unknown as AnyRoute
}

/** The media types a route's body may come in. */
export const bodyTypes = (spec: AnyRoute) =>
  spec.multipart === 'only'
    ? ['multipart/form-data']
    : spec.multipart
      ? ['application/json', 'multipart/form-data']
      : ['application/json']

/** Set on a write's answer when the read models had not reached the write within the bounded wait. */
const LAG_HEADER = 'x-read-models-lag'

const actorOf = (identity: Identity): CommandContext['actor'] => {
  switch (identity.kind) {
    case 'user':
      return { kind: 'human', userId: identity.userId }
    case 'apiKey':
      return { kind: 'agent', client: identity.name, keyId: identity.keyId }
    case 'admin':
      return { kind: 'system', process: 'admin-api' }
    case 'anonymous':
      return { kind: 'system', process: 'anonymous' }
  }
}

/** Where the client reached the service: scheme and host (Koa's `ctx.origin` is the Origin header, not this). */
export const originOf = (ctx: Context) => `${ctx.protocol}://${ctx.host}`

/** Writes a success envelope (or lets the error middleware write a failure). */
export const send = (ctx: Context, status: number, data: unknown) => {
  ctx.status = status
  ctx.body = { success: true, data }
}

/**
 * Where two paths could take the same request (`/knowledge/config` and `/knowledge/:id`), the one with a fixed
 * segment at the first place they differ is mounted first, so it answers: the order of the route lists does not
 * matter. Paths are ordered by where their parameters sit (a fixed segment first), then by length.
 */
const bySpecificity = (a: AnyRoute, b: AnyRoute) => {
  const x = a.path.split('/')
  const y = b.path.split('/')
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const params = Number(x[i].startsWith(':')) - Number(y[i].startsWith(':'))
    if (params !== 0) return params
  }
  return x.length - y.length
}

export const mount = (router: Router, deps: Deps, routes: AnyRoute[]) => {
  for (const spec of [...routes].sort(bySpecificity)) {
    router[spec.method](spec.path, async (ctx: Context) => {
      const identity = await authenticate(deps, ctx, spec.auth)
      authorize(identity, spec.permission)
      if (spec.managers && identity.kind === 'user' && !managesWorkspace(identity.role))
        throw new ApiError('FORBIDDEN', spec.managers)
      try {
        await answer(ctx, spec, identity)
      } catch (error) {
        // A refused request changes nothing: what its route took on the way in (an upload slot) is given back.
        await (ctx.state.refund as (() => Promise<void>) | undefined)?.().catch(() => undefined)
        throw error
      }
    })
  }

  // Each route's query parameter names, worked out once at mount rather than per request.
  const knownQuery = new Map(routes.map((spec) => [spec, new Set(propsOf(spec.query))]))
  /** A query parameter the route does not take is a mistake to name, not one to ignore (`?q=` filtering nothing). */
  const unknownQuery = (ctx: Context, spec: AnyRoute) => {
    const known = knownQuery.get(spec) ?? new Set<string>()
    const takes = known.size ? ` (it takes ${[...known].join(', ')})` : ''
    return Object.keys(ctx.query ?? {})
      .filter((name) => !known.has(name) && !spec.extraQuery?.(name))
      .map((name) => `${name}: is not a query parameter of ${spec.method.toUpperCase()} ${spec.path}${takes}`)
  }

  const answer = async (ctx: Context, spec: AnyRoute, identity: Identity) => {
    if (spec.before) await spec.before({ identity, ctx }, deps)
    // The body is read once the caller is known to be allowed here.
    if (spec.body && spec.multipart !== 'only') await readJson(ctx)
    // A body the JSON parser did not read (another Content-Type) would be taken for an empty one; a
    // POST sent empty and untyped (curl -X POST, fetch without a body) is one.
    const types = bodyTypes(spec)
    const empty = ctx.get('content-length') === '0' && !ctx.get('content-type')
    if (spec.body && !empty && ctx.request.is(types) === false) {
      throw new ApiError('VALIDATION_ERROR', `the request body must be ${types.join(' or ')}`, [
        `body: send it with Content-Type: ${types.join(' or ')}`,
      ])
    }
    const problems = inputProblems(
      { ...(ctx.params ?? {}), ...(ctx.query ?? {}), ...((ctx.request as { body?: object }).body ?? {}) },
      '',
      [],
    )
    const settle = spec.method === 'get' ? takeSettle(ctx, problems) : false
    problems.push(...unknownQuery(ctx, spec))
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'the request is not valid', problems)
    const parts = [
      decode(spec.params, ctx.params ?? {}),
      decode(spec.query, ctx.query ?? {}),
      decode(spec.body, (ctx.request as { body?: unknown }).body ?? {}),
    ]
    for (const part of parts) if (E.isLeft(part)) problems.push(...part.left)
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'the request is not valid', problems)
    const [params, query, body] = parts.map((p) => (p as E.Right<unknown>).right)
    const command: CommandContext = {
      actor: actorOf(identity),
      at: new Date().toISOString(),
      correlationId: String(ctx.state.requestId ?? randomUUID()),
      ...('workspaceId' in identity ? { workspaceId: identity.workspaceId } : {}),
    }
    // Searches' records are appended after their answers: a read asked to settle waits for them
    // (this process's; another API process's follow within a quarter second), and says when it
    // could not (the log refusing them, or the read models behind).
    if (settle && !(await settleCitations(deps))) ctx.set(LAG_HEADER, 'true')
    const extraQuery = Object.fromEntries(Object.entries(ctx.query ?? {}).filter(([name]) => spec.extraQuery?.(name)))
    const input: HandlerInput<unknown, unknown, unknown> = {
      params,
      query,
      body,
      identity,
      command,
      extraQuery,
      origin: originOf(ctx),
      header: (name) => ctx.get(name) || undefined,
      ...spec.extras?.({ ctx, identity }, deps),
    }
    const result = await spec.handler(input, pick(deps, spec.uses ?? []))
    if (E.isLeft(result)) {
      const { code, message, details, writtenAt } = result.left
      if (writtenAt) await deps.runner.waitFor(writtenAt, deps.config.readYourWritesTimeoutMs)
      throw new ApiError(code, message, details)
    }
    const reply = result.right
    ctx.state.refund = undefined
    if (reply.stream) {
      ctx.status = 200
      ctx.type = spec.produces?.type ?? 'application/octet-stream'
      for (const [k, v] of Object.entries(reply.headers ?? {})) ctx.set(k, v)
      // Koa destroys the stream when the client goes away.
      ctx.body = reply.stream
      return
    }
    let caughtUp = true
    if (reply.position && reply.position > 0) {
      caughtUp = await deps.runner.waitFor(reply.position, deps.config.readYourWritesTimeoutMs)
      if (!caughtUp) ctx.set(LAG_HEADER, 'true')
    }
    const read = reply.read ? await reply.read(caughtUp) : reply.data
    const where = `${spec.method.toUpperCase()} ${spec.path}`
    const data = encodeAnswer(spec.response as AnswerCodec, read, deps.config.checkAnswers, where)
    for (const [k, v] of Object.entries(reply.headers ?? {})) ctx.set(k, v)
    send(ctx, reply.status ?? 200, data)
  }
}

const pick = <D extends keyof Deps>(deps: Deps, names: readonly D[]): Uses<D> =>
  Object.fromEntries(names.map((name) => [name, deps[name]])) as Uses<D>

/** A command's result as a reply: its position drives read-your-writes, the rest is the data. */
export const replyWith = <T extends { position: number }>(
  result: E.Either<DomainError, T>,
  status = 200,
  pick?: (r: T) => unknown,
): E.Either<DomainError, Reply> =>
  E.map((r: T) => {
    const { position, ...data } = r
    return { data: pick ? pick(r) : data, position, status }
  })(result)

/**
 * After a write: the answer is what `read` finds once the read models reached `position`. When the wait
 * gives up, the answer says so (`x-read-models-lag`: it may not show the write).
 */
export const readBack = (
  position: number,
  read: (caughtUp: boolean) => Promise<unknown>,
  status = 200,
): E.Either<DomainError, Reply> => E.right({ position, read, status })
