import { accessToken } from '../../domain/accounts/accessToken'
import { apiKey } from '../../domain/accounts/apiKey'
import { member } from '../../domain/accounts/member'
import { oauthClient, oauthGrant } from '../../domain/accounts/oauth'
import { user } from '../../domain/accounts/user'
import { workspace } from '../../domain/accounts/workspace'
import { aggregate } from '../handle'
import { streams } from '../streams'

// The accounts' aggregates, each decider bound to its streams' name.

export const users = aggregate(user, streams.user)
export const workspaces = aggregate(workspace, streams.workspace)
export const members = aggregate(member, streams.member)
export const accessTokens = aggregate(accessToken, streams.accessToken)
export const apiKeys = aggregate(apiKey, streams.apiKey)
export const oauthClients = aggregate(oauthClient, streams.oauthClient)
export const oauthGrants = aggregate(oauthGrant, streams.oauthGrant)
