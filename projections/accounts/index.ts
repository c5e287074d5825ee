/**
 * Projectors of users, workspaces, members, tokens, API keys and OAuth grants.
 * What other capabilities and layers may use of them: the projectors, which accounts' module registers
 * (app/capabilities), and the accounts one alone, which a bench drives. The rest is accounts' own.
 */
export { accountsProjector } from './accounts'
export { oauthProjector } from './oauth'
