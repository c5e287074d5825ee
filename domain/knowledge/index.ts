/**
 * Deciders of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './admission'
export * from './entry'
export * from './entryEvents'
export * from './folder'
export * from './kbConfig'
export * from './task'
