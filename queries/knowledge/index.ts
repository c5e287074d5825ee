/**
 * Reads of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of them: an entry's versions, a folder, the configuration, the
 * passages to re-embed, and stale exposure (search, log's receipts, a bench). The rest is knowledge's own.
 */
export { getFolder } from './folders'
export { readKbConfig } from './kbConfig'
export { embeddedPassages, workspacesWithEmbeddings } from './knowledge'
export { staleExposure } from './staleExposure'
export { entryVersion, firstContentRevisions } from './versions'
