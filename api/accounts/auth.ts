import * as E from 'fp-ts/Either'
import * as answers from './answers'
import { issueAccessToken, roleOf } from '../../commands/accounts/accounts'
import { fail, permissionsOf } from '../../domain/shared'
import { workspaceById, workspacesOf } from '../../queries/accounts/accounts'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'

/** Authentication: validating a token, switching workspace. */
export const authRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/auth/validate',
    response: answers.Validated,
    tag: 'auth',
    auth: 'bearer',
    summary: "Validate the access token; the user's workspaces come with it (to switch between)",
    uses: ['db'],
    handler: async ({ identity: who }, { db }) => {
      const identity = memberOf(who)
      return E.right({
        data: {
          valid: true,
          user: {
            id: identity.userId,
            email: identity.email,
            name: identity.name,
            current_workspace: { id: identity.workspaceId, name: identity.workspaceName, role: identity.role },
            workspaces: await workspacesOf(db.pool, identity.userId),
          },
          token: { issued_at: identity.issuedAt, expires_at: identity.expiresAt },
        },
      })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/auth/switch-workspace',
    response: answers.Switched,
    tag: 'auth',
    auth: 'bearer',
    summary: 'Switch the active workspace; answers a new token',
    body: c.object({ workspace_id: c.id }, {}),
    uses: ['db', 'store'],
    handler: async ({ identity: who, body, command }, { store, db }) => {
      const identity = memberOf(who)
      // Unknown workspaces and foreign ones answer alike: no existence leak.
      const role = await roleOf(store, body.workspace_id, identity.userId)
      if (!role) return fail('WORKSPACE_ACCESS_DENIED', 'you have no access to that workspace')
      const ttlSeconds = Math.max(
        60,
        Math.round((Date.parse(identity.expiresAt) - Date.parse(identity.issuedAt)) / 1000),
      )
      const issued = await issueAccessToken(
        store,
        { ...command, workspaceId: body.workspace_id },
        { userId: identity.userId, workspaceId: body.workspace_id, ttlSeconds },
      )
      if (E.isLeft(issued)) return issued
      const workspace = (await workspaceById(db.pool, body.workspace_id))!
      return E.right({
        data: {
          workspace: {
            id: workspace.id,
            name: workspace.name,
            slug: workspace.slug,
            role,
            permissions: permissionsOf(role),
          },
          access_token: issued.right.access_token,
        },
        position: issued.right.position,
      })
    },
  }),
]
