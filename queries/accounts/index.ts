/**
 * Reads of users, workspaces, members, tokens and API keys.
 * What other capabilities and layers may use of them: a token or an API key found by its hash (the shared auth).
 * The rest is accounts' own.
 */
export { apiKeyByHash, tokenByHash } from './accounts'
