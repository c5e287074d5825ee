/**
 * Reads of searches over entries and pages, their indexes and citations.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './agreement'
export * from './highlight'
export * from './pageSearch'
export * from './ranking'
export * from './rankingModel'
export * from './replay'
export * from './rerank'
export * from './search'
export * from './snapshot'
