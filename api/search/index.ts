/**
 * Routes and tools of searches over entries and pages, their indexes and citations.
 * What other capabilities and layers may use of them: the routes api/app.ts mounts, the tools api/tools lists, and
 * the filter a search takes, which knowledge's kb_search and pages' page_search take too. The rest is search's own.
 */
export { FILTER_NOTE, PAGE_FILTER_NOTE, PageFilter, SearchFilter, filterOf } from './filter'
export { searchOperatorRoutes } from './operators'
export { searchRoutes } from './search'
export { searchTools } from './compare'
