/**
 * Routes and tools of searches over entries and pages, their indexes and citations.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './answers'
export * from './operators'
export * from './search'
