/**
 * Reads of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of them: an entry's versions, a folder, the configuration,
 * stale exposure, and an entry's standing at a moment (search and its receipts, log's access
 * report, a bench). The rest is knowledge's own.
 */
export { getFolder } from './folders'
export { readKbConfig } from './kbConfig'
export { staleExposure } from './staleExposure'
export { entryVersion, firstContentRevisions } from './versions'
export { type EntryStanding, entryStandingAt, knowledgeBaseEnabledAt } from './standing'
