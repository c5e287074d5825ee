import * as t from 'io-ts'
import * as answers from './answers'
import * as accounts from '../../commands/accounts/accounts'
import { Role } from '../../domain/shared'
import * as c from '../codecs'
import { type AnyRoute, replyWith, route } from '../route'

const idParam = t.type({ id: c.id })

/** The admin API: how users, workspaces, tokens and keys are first issued. */
export const adminRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/admin/users',
    response: answers.User,
    tag: 'admin',
    auth: 'admin',
    summary: 'Register a user',
    body: c.object({ email: c.email, name: c.string(1, 200) }, {}),
    uses: ['store'],
    handler: async ({ body, command }, { store }) => replyWith(await accounts.registerUser(store, command, body), 201),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/workspaces',
    response: answers.Workspace,
    tag: 'admin',
    auth: 'admin',
    summary: 'Create a workspace',
    body: c.object({ name: c.string(1, 200) }, { slug: c.slug }),
    uses: ['store'],
    handler: async ({ body, command }, { store }) =>
      replyWith(await accounts.createWorkspace(store, command, body), 201),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/workspaces/:id/members',
    response: answers.Member,
    tag: 'admin',
    auth: 'admin',
    summary: 'Add a member or change their role',
    params: idParam,
    body: c.object({ userId: c.id, role: Role }, {}),
    uses: ['store'],
    handler: async ({ params, body, command }, { store }) =>
      replyWith(
        await accounts.setMember(store, command, { workspaceId: params.id, userId: body.userId, role: body.role }),
      ),
  }),
  route({
    method: 'delete',
    path: '/api/v1/admin/workspaces/:id/members/:userId',
    response: answers.MemberRemoved,
    tag: 'admin',
    auth: 'admin',
    summary: "Remove a member: the user's tokens for the workspace, and the accesses they granted MCP clients, end",
    params: t.type({ id: c.id, userId: c.id }),
    uses: ['store'],
    handler: async ({ params, command }, { store }) =>
      replyWith(await accounts.removeMember(store, command, { workspaceId: params.id, userId: params.userId })),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/tokens',
    response: answers.Token,
    tag: 'admin',
    auth: 'admin',
    summary: 'Issue an access token',
    body: c.object({ userId: c.id, workspaceId: c.id }, { ttlSeconds: c.integer(60, 31_536_000) }),
    uses: ['store'],
    handler: async ({ body, command }, { store }) =>
      replyWith(
        await accounts.issueAccessToken(store, command, { ...body, ttlSeconds: body.ttlSeconds ?? 30 * 24 * 3600 }),
        201,
        (r) => ({ id: r.id, access_token: r.access_token, expires_at: r.expires_at }),
      ),
  }),
  route({
    method: 'delete',
    path: '/api/v1/admin/tokens/:id',
    response: answers.Revoked,
    tag: 'admin',
    auth: 'admin',
    summary: 'Revoke an access token',
    params: idParam,
    uses: ['store'],
    handler: async ({ params, command }, { store }) =>
      replyWith(await accounts.revokeAccessToken(store, command, params.id)),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/api-keys',
    response: answers.ApiKey,
    tag: 'admin',
    auth: 'admin',
    summary: 'Issue an API key for a workspace',
    body: c.object({ workspaceId: c.id, name: c.string(1, 100) }, {}),
    uses: ['store'],
    handler: async ({ body, command }, { store }) => replyWith(await accounts.issueApiKey(store, command, body), 201),
  }),
  route({
    method: 'delete',
    path: '/api/v1/admin/api-keys/:id',
    response: answers.Revoked,
    tag: 'admin',
    auth: 'admin',
    summary: 'Revoke an API key',
    params: idParam,
    uses: ['store'],
    handler: async ({ params, command }, { store }) =>
      replyWith(await accounts.revokeApiKey(store, command, params.id)),
  }),
]
