/**
 * Projectors of pages, their versions, proposals, collections and packs. What other capabilities and layers may use
 * of them: the projector, which its capability's module registers (app/capabilities). The rest is pages' own.
 */
export { pagesProjector } from './pages'
