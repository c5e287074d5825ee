/**
 * Routes and tools of users, workspaces, members, tokens and API keys.
 * What other capabilities and layers may use of them: the routes api/app.ts mounts. The rest is accounts' own.
 */
export { adminRoutes } from './admin'
export { authRoutes } from './auth'
