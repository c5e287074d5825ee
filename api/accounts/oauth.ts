import { randomUUID } from 'node:crypto'
import type Router from '@koa/router'
import { OAuthClientMetadataSchema } from '@modelcontextprotocol/sdk/shared/auth.js'
import * as E from 'fp-ts/Either'
import type { Context } from 'koa'
import getRawBody from 'raw-body'
import { takeHit } from '../../adapters/rateLimit'
import { roleOf } from '../../commands/accounts/accounts'
import { redeemOAuthCode, refreshOAuthTokens, registerOAuthClient } from '../../commands/accounts/oauth'
import { hashSecret } from '../../commands/secrets'
import { SCOPES } from '../../domain/accounts/oauth'
import { grantBySecret } from '../../queries/accounts/oauth'
import type { Queryable } from '../../adapters/db'
import { readJson } from '../body'
import { ApiError, statusOf } from '../errors'
import { inputProblems } from '../validation'
import { checkAuthorization, issuerOf, mcpResourceOf, redirectProblem, redirectWith } from './authorization'
import type { Deps } from '../deps'
import { originOf } from '../route'

// OAuth 2.1 for /mcp: the protected resource's metadata (RFC 9728), the authorization server's (RFC 8414), dynamic
// client registration (RFC 7591), the authorization endpoint (which hands the person to the console to sign in and
// grant), and the token endpoint (PKCE S256, refresh tokens that rotate, resource indicators of RFC 8707). These
// answer in OAuth's own shapes ({ error, error_description }), as OAuth clients read them.

/** Where a client finds the protected resource's metadata (named in /mcp's 401). */
export const resourceMetadataUrl = (issuer: string) => `${issuer}/.well-known/oauth-protected-resource/mcp`

const authorizationServerMetadata = (issuer: string) => ({
  issuer,
  authorization_endpoint: `${issuer}/oauth/authorize`,
  token_endpoint: `${issuer}/oauth/token`,
  registration_endpoint: `${issuer}/oauth/register`,
  scopes_supported: [...SCOPES],
  response_types_supported: ['code'],
  response_modes_supported: ['query'],
  grant_types_supported: ['authorization_code', 'refresh_token'],
  token_endpoint_auth_methods_supported: ['none'],
  code_challenge_methods_supported: ['S256'],
  authorization_response_iss_parameter_supported: true,
})

const protectedResourceMetadata = (issuer: string) => ({
  resource: mcpResourceOf(issuer),
  authorization_servers: [issuer],
  scopes_supported: [...SCOPES],
  bearer_methods_supported: ['header'],
  resource_name: 'Knowledge base (MCP)',
})

/** An OAuth error answer. */
const oauthError = (ctx: Context, status: number, error: string, description: string) => {
  ctx.status = status
  ctx.set('Cache-Control', 'no-store')
  ctx.body = { error, error_description: description }
}

const FORM_LIMIT = '16kb'

/** A token request's form (application/x-www-form-urlencoded), or undefined when it is not one. */
const readForm = async (ctx: Context) => {
  if (!ctx.request.is('application/x-www-form-urlencoded')) return undefined
  const text = (await getRawBody(ctx.req, { limit: FORM_LIMIT, encoding: 'utf-8' })).toString()
  const form = new URLSearchParams(text)
  return (name: string) => form.get(name) ?? undefined
}

/** Registrations a minute from one address: registering is open to anyone, and writes an event. */
const REGISTRATIONS_PER_MINUTE = 20

const allowCors = (ctx: Context) => {
  // Browser-based MCP clients read the metadata and call these from their own origin; no cookie is involved.
  ctx.set('Access-Control-Allow-Origin', '*')
  ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, MCP-Protocol-Version')
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
}

export const mountOAuth = (router: Router, deps: Deps) => {
  const db = deps.db.pool
  /** The endpoints browser-based clients call: each also answers its CORS preflight. */
  const cors = (path: string, method: 'get' | 'post', handler: (ctx: Context) => Promise<void> | void) => {
    router.options(path, (ctx) => {
      allowCors(ctx)
      ctx.status = 204
    })
    router[method](path, async (ctx) => {
      allowCors(ctx)
      try {
        await handler(ctx)
      } catch (error) {
        // A body that cannot be read (not JSON, too large) is answered in OAuth's shape too.
        if (!(error instanceof ApiError)) throw error
        const said = [error.message, ...(error.details ?? [])].join('; ')
        oauthError(ctx, statusOf(error.code) === 413 ? 413 : 400, 'invalid_request', said)
      }
    })
  }
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp'])
    cors(path, 'get', (ctx) => {
      ctx.body = protectedResourceMetadata(issuerOf(deps, originOf(ctx)))
    })
  cors('/.well-known/oauth-authorization-server', 'get', (ctx) => {
    ctx.body = authorizationServerMetadata(issuerOf(deps, originOf(ctx)))
  })

  cors('/oauth/register', 'post', async (ctx) => {
    const verdict = await takeHit(
      deps.db,
      `oauth-register:${ctx.request.ip || 'unknown'}`,
      REGISTRATIONS_PER_MINUTE,
      60,
    )
    if (!verdict.allowed) {
      ctx.set('Retry-After', String(verdict.retryAfterSeconds))
      return oauthError(ctx, 429, 'invalid_request', `too many registrations; retry in ${verdict.retryAfterSeconds} s`)
    }
    await readJson(ctx, '64kb')
    const body = (ctx.request as { body?: unknown }).body
    const unreadable = inputProblems(body, '', [])
    if (unreadable.length) return oauthError(ctx, 400, 'invalid_client_metadata', unreadable.join('; '))
    const parsed = OAuthClientMetadataSchema.safeParse(body)
    if (!parsed.success) {
      const { issues } = parsed.error
      const redirects = issues.some((i) => i.path[0] === 'redirect_uris' && i.path.length > 1)
      return oauthError(
        ctx,
        400,
        redirects ? 'invalid_redirect_uri' : 'invalid_client_metadata',
        issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
      )
    }
    const metadata = parsed.data
    const uris = metadata.redirect_uris.map(String)
    if (uris.length === 0 || uris.length > 10)
      return oauthError(ctx, 400, 'invalid_redirect_uri', 'redirect_uris: one to ten URIs')
    const problem = uris.map(redirectProblem).find(Boolean)
    if (problem) return oauthError(ctx, 400, 'invalid_redirect_uri', problem)
    // The name a person reads on the consent screen: no control or direction-changing characters, 200 at most.
    const cleaned = (metadata.client_name ?? '').replace(/[\p{Cc}\p{Cf}]/gu, '').trim()
    const name = [...cleaned].slice(0, 200).join('') || 'MCP client'
    const done = await registerOAuthClient(deps.store, command('oauth-registration'), { name, redirectUris: uris })
    if (E.isLeft(done)) return oauthError(ctx, 400, 'invalid_client_metadata', done.left.message)
    await deps.runner.waitFor(done.right.position, deps.config.readYourWritesTimeoutMs)
    ctx.status = 201
    ctx.set('Cache-Control', 'no-store')
    ctx.body = {
      client_id: done.right.clientId,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      client_name: name,
      redirect_uris: uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: SCOPES.join(' '),
    }
  })

  // The person signs in and grants in the console; what it shows, and the grant, go through /api/v1/oauth.
  router.get('/oauth/authorize', async (ctx) => {
    const issuer = issuerOf(deps, originOf(ctx))
    const checked = await checkAuthorization(db, issuer, ctx.query)
    if (E.isLeft(checked)) {
      const problem = checked.left
      if ('fatal' in problem) return oauthError(ctx, 400, 'invalid_request', problem.fatal)
      ctx.redirect(
        redirectWith(problem.redirectUri, issuer, {
          error: problem.error,
          error_description: problem.description,
          state: problem.state,
        }),
      )
      return
    }
    ctx.redirect(`${issuer}/?${ctx.querystring}#/authorize`)
  })

  cors('/oauth/token', 'post', async (ctx) => {
    ctx.set('Cache-Control', 'no-store')
    const form = await readForm(ctx)
    if (!form) return oauthError(ctx, 400, 'invalid_request', 'send application/x-www-form-urlencoded')
    const grantType = form('grant_type')
    const clientId = form('client_id')
    if (!clientId) return oauthError(ctx, 401, 'invalid_client', 'client_id is required (a public client)')
    const resource = form('resource')
    let answer: Awaited<ReturnType<typeof redeemOAuthCode>>
    let scopes: string[]
    if (grantType === 'authorization_code') {
      const [code, verifier, redirectUri] = [form('code'), form('code_verifier'), form('redirect_uri')]
      if (!code || !verifier) return oauthError(ctx, 400, 'invalid_request', 'code and code_verifier are required')
      const grant = await liveGrant(db, 'code', code)
      if (typeof grant === 'string') return oauthError(ctx, 400, 'invalid_grant', grant)
      scopes = grant.scopes
      answer = await redeemOAuthCode(deps.store, command('oauth-token'), {
        grantId: grant.id,
        workspaceId: grant.workspace_id,
        code,
        verifier,
        clientId,
        redirectUri,
        resource,
      })
    } else if (grantType === 'refresh_token') {
      const refreshToken = form('refresh_token')
      if (!refreshToken) return oauthError(ctx, 400, 'invalid_request', 'refresh_token is required')
      const grant = await liveGrant(db, 'refresh', refreshToken)
      if (typeof grant === 'string') return oauthError(ctx, 400, 'invalid_grant', grant)
      if (!(await roleOf(deps.store, grant.workspace_id, grant.user_id)))
        return oauthError(ctx, 400, 'invalid_grant', 'the person who granted the access is no longer a member')
      scopes = grant.scopes
      answer = await refreshOAuthTokens(deps.store, command('oauth-token'), {
        grantId: grant.id,
        workspaceId: grant.workspace_id,
        refreshToken,
        clientId,
        resource,
      })
    } else
      return oauthError(ctx, 400, 'unsupported_grant_type', 'grant_type must be authorization_code or refresh_token')
    if (E.isLeft(answer)) return oauthError(ctx, 400, 'invalid_grant', answer.left.message)
    // The token works at /mcp as soon as the client has it.
    await deps.runner.waitFor(answer.right.position, deps.config.readYourWritesTimeoutMs)
    const { position: _, ...tokens } = answer.right
    ctx.body = { ...tokens, token_type: 'Bearer', scope: scopes.join(' ') }
  })
}

/** The grant a code or a refresh token belongs to, unless it has ended; else why not. */
const liveGrant = async (db: Queryable, kind: 'code' | 'refresh', secret: string) => {
  const grant = await grantBySecret(db, kind, hashSecret(secret))
  if (!grant) return kind === 'code' ? 'the authorization code is not valid' : 'the refresh token is not valid'
  return grant.revoked_at ? 'the access was revoked' : grant
}

/** The context of a write the OAuth endpoints make on a client's behalf. */
const command = (process: string) => ({
  actor: { kind: 'system' as const, process },
  at: new Date().toISOString(),
  correlationId: randomUUID(),
})

const documented = (operationId: string, summary: string, description: string, extra: object = {}) => ({
  operationId,
  summary,
  tags: ['oauth'],
  security: [],
  ...extra,
  responses: { default: { description } },
})
const preflight = (name: string) =>
  documented(`${name}Preflight`, 'CORS preflight', '204, with Access-Control-Allow-Origin: *')
const form = {
  requestBody: { content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } } },
}

/** OAuth's endpoints for the OpenAPI document (they answer in OAuth's shapes, not the envelope). */
export const oauthOpenApi = {
  '/.well-known/oauth-protected-resource': {
    get: documented('getProtectedResource', "The MCP endpoint's protected-resource metadata (RFC 9728)", 'JSON'),
    options: preflight('protectedResource'),
  },
  '/.well-known/oauth-protected-resource/mcp': {
    get: documented('getMcpProtectedResource', 'The same, at the path of /mcp', 'JSON'),
    options: preflight('mcpProtectedResource'),
  },
  '/.well-known/oauth-authorization-server': {
    get: documented('getAuthorizationServer', "The authorization server's metadata (RFC 8414)", 'JSON'),
    options: preflight('authorizationServer'),
  },
  '/oauth/register': {
    post: documented('registerOAuthClient', 'Register an MCP client (RFC 7591; public clients, PKCE)', '201, JSON'),
    options: preflight('registerOAuthClient'),
  },
  '/oauth/authorize': {
    get: documented(
      'authorize',
      'Start an authorization: the browser goes to the console to sign in and grant',
      '302 to the console, or back to the client with an error',
    ),
  },
  '/oauth/token': {
    post: documented(
      'token',
      'Exchange a code (with its PKCE verifier) or a refresh token for tokens',
      'JSON tokens, or an OAuth error',
      form,
    ),
    options: preflight('token'),
  },
}
