/**
 * Commands of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the page changes that log's undo replays, and the
 * pages' stream categories, which the service declares. The rest is pages' own.
 */
export { pageStreams } from './aggregates'
export { deletePage, revertPage } from './pages'
