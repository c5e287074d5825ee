/**
 * Routes and tools of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './answers'
export * from './entries'
export * from './entryTools'
export * from './folders'
export * from './ingestion'
export * from './kbConfig'
export * from './operators'
export * from './shapes'
