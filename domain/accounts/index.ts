/**
 * Deciders of users, workspaces, members, tokens and API keys.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './accessToken'
export * from './apiKey'
export * from './member'
export * from './user'
export * from './workspace'
