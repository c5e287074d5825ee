/**
 * Routes and tools of searches over entries and pages, their indexes, citations and receipts. What other
 * capabilities and layers may use of them: the routes and tools its capability's module registers
 * (app/capabilities), and a pack's page_search, which pages' module hands to the packs. The rest is search's own.
 */
export { searchOperatorRoutes } from './operators'
export { receiptRoutes } from './receipts'
export { searchRoutes } from './search'
export { packSearch, searchTools } from './tools'
