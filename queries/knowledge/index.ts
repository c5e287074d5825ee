/**
 * Reads of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './folders'
export * from './kbConfig'
export * from './retention'
export * from './knowledge'
export * from './staleExposure'
export * from './statistics'
export * from './tasks'
export * from './versions'
