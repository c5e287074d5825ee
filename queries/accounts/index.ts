/**
 * Reads of users, workspaces, members, tokens and API keys.
 * What other capabilities and layers may use of them: a token or an API key found by its hash (the shared auth),
 * and who could read a workspace when (log's access report). The rest is accounts' own.
 */
export { apiKeyByHash, tokenByHash } from './accounts'
export { everMember, readersAt, workspaceKey } from './access'
