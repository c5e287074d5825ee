/**
 * Routes and tools of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the routes, packs and tools pages' module registers
 * (app/capabilities), the human author log's undo routes write as, and the shape of a pack's search, which
 * search provides.
 * The rest is pages' own.
 */
export { collectionRoutes } from './collections'
export { mountPacks, packsOpenApi } from './packs'
export type { PackSearch } from './packs'
export { pageTools } from './pageTools'
export { pageUndoTools } from './pageUndoTools'
export { pageVersionRoutes } from './pageVersions'
export { pageRoutes } from './pages'
export { proposalRoutes } from './proposals'
export { proposalTools } from './proposalTools'
export { humanAuthor } from './shapes'
