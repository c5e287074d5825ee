/**
 * Commands of searches over entries and pages, their indexes, citations and receipts.
 * What other capabilities and layers may use of them: searching entries and pages (search's tools, a pack's search),
 * the citation log (the wiring), re-embedding and replaying (operator routes and the kb CLI),
 * and search's stream categories, which the service declares. The rest is search's own.
 */
export { searchStreams } from './aggregates'
export { CitationLog } from './citations'
export { searchPages } from './pageSearch'
export { reembedAll } from './reembed'
export { DEFAULT_MAX_LOST, DEFAULT_REPLAYED, MAX_REPLAYED, rebuildWithReplay } from './replay'
export type { ReplayReport } from './replay'
export { searchKnowledge } from './search'
