/**
 * Commands of users, workspaces, members, tokens and API keys.
 * What other capabilities and layers may use of them: whether a workspace exists (knowledge's and search's
 * operators' commands), and the accounts' stream categories, which the service declares. The rest is accounts' own.
 */
export { workspaceExists } from './accounts'
export { accountStreams } from './aggregates'
