/**
 * Commands of searches over entries and pages, their indexes and citations.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './citations'
export * from './pageSearch'
export * from './reembed'
export * from './replay'
export * from './search'
