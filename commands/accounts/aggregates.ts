import { accessToken } from '../../domain/accounts/accessToken'
import { apiKey } from '../../domain/accounts/apiKey'
import { member } from '../../domain/accounts/member'
import { oauthClient, oauthGrant } from '../../domain/accounts/oauth'
import { user } from '../../domain/accounts/user'
import { workspace } from '../../domain/accounts/workspace'
import { aggregate } from '../handle'
import { type StreamCategory, category } from '../streams'

// The accounts' aggregates, each decider bound to its streams' category.

export const users = aggregate(user, category('user'))
export const workspaces = aggregate(workspace, category('workspace'))
export const members = aggregate(
  member,
  category('member', (workspaceId: string, userId: string) => `${workspaceId}_${userId}`),
)
export const accessTokens = aggregate(accessToken, category('token'))
export const apiKeys = aggregate(apiKey, category('apikey'))
export const oauthClients = aggregate(oauthClient, category('oauthclient'))
export const oauthGrants = aggregate(oauthGrant, category('oauthgrant'))

/** The accounts' categories: read by those who manage the workspace, looked up by their category's name. */
export const accountStreams: StreamCategory[] = [
  users,
  workspaces,
  members,
  accessTokens,
  apiKeys,
  oauthClients,
  oauthGrants,
]
