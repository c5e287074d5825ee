/**
 * Reads of searches over entries and pages, their indexes and citations.
 * What other capabilities and layers may use of them: the result shapes and highlighting (the tools' answers), the
 * replay's judging (search's commands), and the ranking, its model, snapshots and measures (benches and the eval).
 * The rest is search's own.
 */
export { mean, ndcgAt, percentile } from './agreement'
export { compareSearches } from './compare'
export type { Comparison } from './compare'
export { highlight } from './highlight'
export type { PageResult, PageScope } from './pageSearch'
export { embedQuery, keep, rank } from './ranking'
export type { Mode, RankDeps } from './ranking'
export { MODEL, calibrate, vectorRaw } from './rankingModel'
export type { TextEvidence } from './rankingModel'
export { compareQueries, figuresOf, judgeBoth, judgedWorkspaces, loggedQueries } from './replay'
export type { Compared, Judged } from './replay'
export { KNOWLEDGE_INDEX, hydrate, searchSettings, servedChunks } from './search'
export type { SearchResult } from './search'
export { inSnapshot } from './snapshot'
