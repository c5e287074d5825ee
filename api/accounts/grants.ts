import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as answers from './answers'
import { type AuthorizationProblem, checkAuthorization, issuerOf, redirectWith } from './authorization'
import { revokeApiKey, roleOf } from '../../commands/accounts/accounts'
import { approveOAuthGrant, revokeOAuthGrant } from '../../commands/accounts/oauth'
import type { Scope } from '../../domain/accounts/oauth'
import { fail, managesWorkspace, permissionsOf } from '../../domain/shared'
import { keysOf, workspaceKey } from '../../queries/accounts/access'
import { grantById, grantsOf } from '../../queries/accounts/oauth'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'

// What the console asks of OAuth: the authorization request a person is about to grant, the grant (or refusal)
// itself, and the grants to list and revoke; beside them, the workspace's API keys, for its owners and admins.

/** An authorization request's parameters, as the client sent them to /oauth/authorize. */
const Request = c.object(
  {
    client_id: c.string(1, 200),
    response_type: c.string(1, 50),
    code_challenge: c.string(1, 200),
    code_challenge_method: c.string(1, 20),
  },
  { redirect_uri: c.string(1, 2000), scope: c.string(0, 500), resource: c.string(1, 2000), state: c.string(0, 1000) },
  'the parameters of the authorization request (as /oauth/authorize received them)',
)

const problemOf = (p: AuthorizationProblem) =>
  fail('VALIDATION_ERROR', 'the authorization request is not valid', [
    'fatal' in p ? p.fatal : `${p.error}: ${p.description}`,
  ])

const grantView = (g: Awaited<ReturnType<typeof grantsOf>>[number]) => ({
  id: g.id,
  clientId: g.client_id,
  clientName: g.client_name,
  userId: g.user_id,
  userName: g.user_name,
  scopes: g.scopes,
  createdAt: g.created_at.toISOString(),
  ...(g.refreshed_at ? { lastRefreshedAt: g.refreshed_at.toISOString() } : {}),
  status: g.revoked_at ? 'revoked' : g.redeemed ? 'active' : 'pending',
  ...(g.revoked_at ? { revokedAt: g.revoked_at.toISOString() } : {}),
})

export const grantRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/oauth/authorize',
    response: answers.AuthorizationView,
    tag: 'auth',
    auth: 'bearer',
    summary: 'The authorization request an MCP client sent, checked, as the console shows it before a person grants it',
    query: Request,
    uses: ['db', 'config'],
    handler: async ({ query, origin }, deps) => {
      const checked = await checkAuthorization(deps.db.pool, issuerOf(deps, origin), query)
      if (E.isLeft(checked)) return problemOf(checked.left)
      const r = checked.right
      return E.right({
        data: {
          client: { id: r.client.id, name: r.client.name },
          redirectUri: r.redirectUri,
          scopes: r.scopes,
          resource: r.resource,
        },
      })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/oauth/grants',
    response: answers.AuthorizationDecision,
    tag: 'auth',
    auth: 'bearer',
    summary:
      "Grant an MCP client access to one of the person's workspaces with the scopes chosen, or refuse it; answers " +
      'where to send the browser back to',
    body: c.object({ request: Request, approve: t.boolean }, { workspaceId: c.id, scopes: t.array(t.string) }),
    uses: ['db', 'config', 'store'],
    handler: async ({ body, identity, command, origin }, deps) => {
      const person = memberOf(identity)
      const issuer = issuerOf(deps, origin)
      const checked = await checkAuthorization(deps.db.pool, issuer, body.request)
      if (E.isLeft(checked)) return problemOf(checked.left)
      const r = checked.right
      if (!body.approve)
        return E.right({
          data: {
            redirectTo: redirectWith(r.redirectUri, issuer, {
              error: 'access_denied',
              error_description: 'the person refused the access',
              state: r.state,
            }),
          },
        })
      const workspaceId = body.workspaceId ?? person.workspaceId
      const role = await roleOf(deps.store, workspaceId, person.userId)
      if (!role) return fail('NOT_FOUND', `workspace ${workspaceId} not found`)
      const scopes = (body.scopes ?? r.scopes) as Scope[]
      const unasked = scopes.filter((s) => !r.scopes.includes(s))
      if (unasked.length || !scopes.includes('kb:read'))
        return fail('VALIDATION_ERROR', 'the scopes must be among those the client asked for, with kb:read', [
          `scopes: some of ${r.scopes.join(', ')}, including kb:read`,
        ])
      if (scopes.includes('kb:write') && !permissionsOf(role).includes('write:knowledge'))
        return fail('VALIDATION_ERROR', `a ${role} cannot grant kb:write in this workspace`, [
          'scopes: kb:read only (your role does not write)',
        ])
      const done = await approveOAuthGrant(deps.store, command, {
        clientId: r.client.id,
        clientName: r.client.name,
        userId: person.userId,
        workspaceId,
        scopes,
        resource: r.resource,
        redirectUri: r.redirectUri,
        redirectUriSent: r.redirectUriSent,
        codeChallenge: r.codeChallenge,
      })
      return E.map((g: { grantId: string; code: string; position: number }) => ({
        data: { grantId: g.grantId, redirectTo: redirectWith(r.redirectUri, issuer, { code: g.code, state: r.state }) },
        position: g.position,
      }))(done)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/oauth/grants',
    response: answers.Grants,
    tag: 'auth',
    auth: 'bearer',
    summary:
      'The accesses granted to MCP clients in the workspace, newest first: all of them for owners and admins, ' +
      "a member's own for the others",
    uses: ['db'],
    handler: async ({ identity }, { db }) => {
      const person = memberOf(identity)
      const mine = managesWorkspace(person.role) ? undefined : person.userId
      return E.right({ data: { items: (await grantsOf(db.pool, person.workspaceId, mine)).map(grantView) } })
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/oauth/grants/:id',
    response: answers.Revoked,
    tag: 'auth',
    auth: 'bearer',
    summary:
      "Revoke an MCP client's access (one's own; owners and admins any of the workspace's): its tokens stop at once",
    params: t.type({ id: c.id }),
    uses: ['db', 'store'],
    handler: async ({ identity, params, command }, deps) => {
      const person = memberOf(identity)
      const grant = await grantById(deps.db.pool, person.workspaceId, params.id)
      if (!grant || (grant.user_id !== person.userId && !managesWorkspace(person.role)))
        return fail('NOT_FOUND', 'grant not found')
      const done = await revokeOAuthGrant(deps.store, command, {
        grantId: params.id,
        workspaceId: person.workspaceId,
        reason: grant.user_id === person.userId ? 'revoked by the person who granted it' : 'revoked by a manager',
      })
      return E.map((r: { revoked: true; position: number }) => ({
        data: { revoked: r.revoked },
        position: r.position,
      }))(done)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/api-keys',
    response: answers.ApiKeys,
    tag: 'auth',
    auth: 'bearer',
    summary: "The workspace's API keys, newest first (owners and admins; a key itself is shown only when issued)",
    managers: "the workspace's API keys are for owners and admins",
    uses: ['db'],
    handler: async ({ identity }, { db }) => {
      const keys = await keysOf(db.pool, memberOf(identity).workspaceId)
      return E.right({
        data: {
          items: keys.map((k) => ({
            id: k.id,
            name: k.name,
            createdAt: k.created_at.toISOString(),
            status: k.revoked_at ? 'revoked' : 'active',
            ...(k.revoked_at ? { revokedAt: k.revoked_at.toISOString() } : {}),
          })),
        },
      })
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/api-keys/:id',
    response: answers.Revoked,
    tag: 'auth',
    auth: 'bearer',
    summary: "Revoke one of the workspace's API keys (owners and admins): it is refused from then on",
    managers: "the workspace's API keys are for owners and admins",
    params: t.type({ id: c.id }),
    uses: ['db', 'store'],
    handler: async ({ identity, params, command }, deps) => {
      const { workspaceId } = memberOf(identity)
      if (!(await workspaceKey(deps.db.pool, workspaceId, params.id))) return fail('NOT_FOUND', 'API key not found')
      const done = await revokeApiKey(deps.store, command, params.id)
      return E.map((r: { revoked: true; position: number }) => ({
        data: { revoked: r.revoked },
        position: r.position,
      }))(done)
    },
  }),
]
