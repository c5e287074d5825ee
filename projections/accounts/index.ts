/**
 * Projectors of users, workspaces, members, tokens and API keys.
 * What other capabilities and layers may use of them: the projector, which projections/index.ts runs (and a bench
 * drives alone). The rest is accounts' own.
 */
export { accountsProjector } from './accounts'
