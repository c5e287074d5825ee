/**
 * Deciders of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of them: the entry's events and decider (log's undo and receipts,
 * search's chunk rows), its crawl options (the crawler) and chunk spans, and the configuration's types and file-size
 * limit (the shared request path, search's ranking, kb import). The rest is knowledge's own.
 */
export { EntryEvent, entry } from './entry'
export type { ChunkSpans, CrawlOptions } from './entry'
export { MAX_FILE_SIZE } from './kbConfig'
export type { KbConfig, RerankSettings } from './kbConfig'
