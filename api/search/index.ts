/**
 * Routes and tools of searches over entries and pages, their indexes, citations and receipts.
 * What other capabilities and layers may use of them: the routes api/app.ts mounts, the tools api/tools lists, and
 * a pack's page_search, which api/app.ts hands to pages' packs. The rest is search's own.
 */
export { searchOperatorRoutes } from './operators'
export { receiptRoutes } from './receipts'
export { searchRoutes } from './search'
export { packSearch, searchTools } from './tools'
