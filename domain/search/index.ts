/**
 * Deciders of searches over entries and pages, their indexes and citations.
 * What other capabilities and layers may use of them: the served-search events, which knowledge, pages and log
 * count. The rest is search's own.
 */
export { PageSearchServed, SearchServed } from './search'
