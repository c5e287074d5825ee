/**
 * Routes and tools of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the routes and packs api/app.ts mounts, the tools api/tools
 * lists, and the human author log's undo routes write as. The rest is pages' own.
 */
export { collectionRoutes } from './collections'
export { mountPacks } from './packs'
export type { Pack, PackSearch } from './packs'
export { pageTools } from './pageTools'
export { pageUndoTools } from './pageUndoTools'
export { pageVersionRoutes } from './pageVersions'
export { pageRoutes } from './pages'
export { proposalTools } from './proposalTools'
export { humanAuthor } from './shapes'
