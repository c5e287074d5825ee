/**
 * Projectors of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: the projector, which projections/index.ts runs.
 * The rest is pages' own.
 */
export { pagesProjector } from './pages'
