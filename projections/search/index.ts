/**
 * Projectors of searches over entries and pages, their indexes and citations.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './chunkRows'
export * from './chunks'
export * from './pageIndex'
