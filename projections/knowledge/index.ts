/**
 * Projectors of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of them: the projectors, which projections/index.ts runs.
 * The rest is knowledge's own.
 */
export { knowledgeProjector } from './knowledge'
export { tasksProjector } from './tasks'
