import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import { SCOPES, type Scope } from '../../domain/accounts/oauth'
import { type OAuthClientRow, oauthClientById } from '../../queries/accounts/oauth'
import type { Deps } from '../deps'
import { inputProblems } from '../validation'

// An authorization request as /oauth/authorize and the console's grant read it: which redirect URIs a client may
// register and be sent back to, and the request checked against its client and this server.

/** The service's own URL as clients reach it: the issuer, and the base of every OAuth endpoint. */
export const issuerOf = (deps: Pick<Deps, 'config'>, origin: string) =>
  (deps.config.publicUrl || origin).replace(/\/+$/, '')

/** The protected resource: the MCP endpoint (a grant's tokens are for it alone). */
export const mcpResourceOf = (issuer: string) => `${issuer}/mcp`

/** Schemes that are not an application's own: the web's, the system's, and those a browser runs. */
const NOT_AN_APP = new Set(
  'javascript data file vbscript blob about ws wss ftp mailto tel sms intent filesystem view-source chrome edge'.split(
    ' ',
  ),
)

/**
 * Where a client may be sent back to: https, http on the loopback interface (a native app's local server), or an
 * application's own scheme (cursor://, com.example.app:; RFC 8252); never a fragment.
 */
export const redirectProblem = (uri: string) => {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return `${[...uri].slice(0, 100).join('')} is not a URL`
  }
  if (uri.length > 2000) return 'a redirect URI is at most 2,000 characters'
  if (url.hash) return `${uri} has a fragment`
  const scheme = url.protocol.slice(0, -1)
  if (scheme === 'https') return undefined
  if (scheme === 'http')
    return LOOPBACK.has(url.hostname)
      ? undefined
      : `${uri}: plain http is for the loopback interface only (127.0.0.1, [::1], localhost)`
  if (NOT_AN_APP.has(scheme) || scheme.startsWith('ms-'))
    return `${scheme}: is not an application's own scheme (https, loopback http, or one such as cursor:)`
  return undefined
}

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost'])

/** Whether a redirect URI is one the client registered (a loopback one on any port, as RFC 8252 has it). */
const registered = (client: OAuthClientRow, uri: string) =>
  client.redirect_uris.some((r) => {
    if (r === uri) return true
    try {
      const [a, b] = [new URL(r), new URL(uri)]
      return (
        a.protocol === 'http:' &&
        LOOPBACK.has(a.hostname) &&
        a.hostname === b.hostname &&
        a.protocol === b.protocol &&
        a.pathname === b.pathname &&
        a.search === b.search
      )
    } catch {
      return false
    }
  })

/** The parameters of an authorization request, each once, as the client sent them. */
interface AuthorizationParams {
  client_id?: string
  redirect_uri?: string
  response_type?: string
  code_challenge?: string
  code_challenge_method?: string
  scope?: string
  resource?: string
  state?: string
}

export interface AuthorizationRequest {
  client: OAuthClientRow
  redirectUri: string
  /** Whether the request named it (then the token request names it too). */
  redirectUriSent: boolean
  codeChallenge: string
  scopes: Scope[]
  resource: string
  state?: string
}

/**
 * What is wrong with an authorization request: `fatal` where the client or its redirect URI cannot be trusted (the
 * person is told, nobody is redirected), else an OAuth error to send back to the client.
 */
export type AuthorizationProblem =
  | { fatal: string }
  | { redirectUri: string; state?: string; error: string; description: string }

const CHALLENGE = /^[A-Za-z0-9._~-]{43,128}$/

const PARAMS = [
  'client_id',
  'redirect_uri',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'scope',
  'resource',
  'state',
] as const

/** The request's parameters, each a single string (or absent), or what is wrong with them. */
const paramsOf = (query: Record<string, unknown>): E.Either<string, AuthorizationParams> => {
  const params: AuthorizationParams = {}
  for (const name of PARAMS) {
    const value = query[name]
    if (value === undefined) continue
    if (typeof value !== 'string') return E.left(`${name}: given more than once`)
    params[name] = value
  }
  const problems = inputProblems(params, '', [])
  return problems.length ? E.left(problems[0]) : E.right(params)
}

/**
 * Checks an authorization request against the registered client and this server. Anyone may register a client, so
 * a faulty request goes back to the client by itself only on the loopback interface (a native app's own server);
 * elsewhere the person is shown what is wrong, and nobody is redirected (RFC 9700 §4.11.2).
 */
export const checkAuthorization = async (
  db: Queryable,
  issuer: string,
  query: Record<string, unknown>,
): Promise<E.Either<AuthorizationProblem, AuthorizationRequest>> => {
  const read = paramsOf(query)
  if (E.isLeft(read)) return E.left({ fatal: read.left })
  const p = read.right
  const client = p.client_id ? await oauthClientById(db, p.client_id) : undefined
  if (!client) return E.left({ fatal: 'client_id: no such client is registered here' })
  const redirectUri = p.redirect_uri ?? (client.redirect_uris.length === 1 ? client.redirect_uris[0] : undefined)
  if (!redirectUri || !registered(client, redirectUri))
    return E.left({ fatal: 'redirect_uri: not one the client registered' })
  const back = (error: string, description: string): E.Either<AuthorizationProblem, never> =>
    LOOPBACK.has(new URL(redirectUri).hostname) && redirectUri.startsWith('http:')
      ? E.left({ redirectUri, ...(p.state ? { state: p.state } : {}), error, description })
      : E.left({ fatal: `${error}: ${description}` })
  if (p.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code')
  if (!p.code_challenge || !CHALLENGE.test(p.code_challenge) || p.code_challenge_method !== 'S256')
    return back(
      'invalid_request',
      'PKCE is required: code_challenge (43-128 characters) with code_challenge_method S256',
    )
  const resource = mcpResourceOf(issuer)
  if (p.resource !== undefined && p.resource !== resource)
    return back('invalid_target', `resource must be ${resource}, the MCP endpoint`)
  if (p.state !== undefined && p.state.length > 1000)
    return back('invalid_request', 'state is at most 1,000 characters')
  // Scopes this server does not know (openid, offline_access) are left out (RFC 6749 §3.3); writing includes
  // reading; none asked means all it offers, which the person may narrow.
  const asked = (p.scope ?? '').split(' ').filter((s) => (SCOPES as readonly string[]).includes(s))
  const scopes = asked.length ? SCOPES.filter((s) => s === 'kb:read' || asked.includes(s)) : [...SCOPES]
  return E.right({
    client,
    redirectUri,
    redirectUriSent: p.redirect_uri !== undefined,
    codeChallenge: p.code_challenge,
    scopes,
    resource,
    state: p.state,
  })
}

/** The client's redirect URI with the answer's parameters (and the issuer, RFC 9207). */
export const redirectWith = (uri: string, issuer: string, params: Record<string, string | undefined>) => {
  const url = new URL(uri)
  for (const [k, v] of Object.entries({ ...params, iss: issuer })) if (v !== undefined) url.searchParams.set(k, v)
  return url.toString()
}
