/**
 * Background work of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of it: the task runner and the loops the wiring starts.
 * The rest is knowledge's own.
 */
export { WorkspaceLimiter, failDeadJob, runTask } from './ingest'
export { startOutbox } from './outbox'
export { startRetentionSweeper } from './retention'
export { startSyncScheduler } from './sync'
