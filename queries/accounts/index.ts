/**
 * Reads of users, workspaces, members, tokens and API keys.
 * What other capabilities and layers may use of them: a token, an API key or an OAuth grant's access token found by
 * its hash (the shared auth),
 * and who could read a workspace when (log's access report). The rest is accounts' own.
 */
export { apiKeyByHash, tokenByHash } from './accounts'
export { agentKeyKind, everMember, readersAt } from './access'
export { grantByAccessHash } from './oauth'
