/**
 * Commands of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the page changes that log's undo replays. The rest is pages' own.
 */
export { deletePage, revertPage } from './pages'
