/**
 * Deciders of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the page's events, which search indexes and counts the
 * citations of. The rest is pages' own.
 */
export { PageDeleted, PageEvent } from './page'
