/**
 * Deciders of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of them: the entry's events and decider (log's undo, search's chunk
 * rows, receipts and counts of what it served), its crawl options (the crawler) and chunk spans, and the
 * configuration's types and file-size limit (knowledge's uploads, search's ranking, kb import). The rest is
 * knowledge's own.
 */
export { EntryEvent, entry } from './entry'
export { EntryDeleted } from './entryEvents'
export type { ChunkSpans, CrawlOptions } from './entry'
export { MAX_FILE_SIZE } from './kbConfig'
export type { KbConfig, RerankSettings } from './kbConfig'
