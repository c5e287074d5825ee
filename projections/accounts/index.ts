/**
 * Projectors of users, workspaces, members, tokens, API keys and OAuth grants.
 * What other capabilities and layers may use of them: the projectors, which projections/index.ts runs (and a bench
 * drives the accounts one alone). The rest is accounts' own.
 */
export { accountsProjector } from './accounts'
export { oauthProjector } from './oauth'
