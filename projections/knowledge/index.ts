/**
 * Projectors of entries, folders, ingestion tasks, sync and the knowledge base's configuration. What other
 * capabilities and layers may use of them: the projectors, which its capability's module registers
 * (app/capabilities). The rest is knowledge's own.
 */
export { knowledgeProjector } from './knowledge'
export { tasksProjector } from './tasks'
