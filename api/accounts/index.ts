/**
 * Routes and tools of users, workspaces, members, tokens and API keys.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './admin'
export * from './answers'
export * from './auth'
