/**
 * Routes and tools of users, workspaces, members, tokens, API keys and OAuth grants.
 * What other capabilities and layers may use of them: the routes and OAuth's endpoints accounts' module registers
 * (app/capabilities), and where /mcp's 401 points a client to. The rest is accounts' own.
 */
export { adminRoutes } from './admin'
export { authRoutes } from './auth'
export { grantRoutes } from './grants'
export { issuerOf, mcpResourceOf } from './authorization'
export { mountOAuth, oauthOpenApi, resourceMetadataUrl } from './oauth'
