/**
 * Projectors of searches over entries and pages, their indexes, citations and receipts. What other capabilities and
 * layers may use of them: the projectors, which its capability's module registers (app/capabilities). The rest is
 * search's own.
 */
export { chunksProjector } from './chunks'
export { pageIndexProjector } from './pageIndex'
export { receiptsProjector } from './receipts'
export { servedProjector } from './served'
