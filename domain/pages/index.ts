/**
 * Deciders of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the page's events, which search indexes. The rest is pages' own.
 */
export { PageEvent } from './page'
