/**
 * Background work of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './ingest'
export * from './outbox'
export * from './retention'
export * from './sync'
