/**
 * Commands of entries, folders, ingestion tasks, sync and the knowledge base's configuration.
 * What other capabilities and layers may use of them: loading the configuration (pages' and search's routes and
 * tools), an uploaded file's shape (knowledge's uploads), the entry changes that log's undo replays and the entries'
 * aggregate it reads them from, an entry's text at a version (MCP's resources), and knowledge's stream categories,
 * which the service declares.
 * The rest is knowledge's own.
 */
export type { UploadedFile } from './createEntry'
export { entries, knowledgeStreams } from './aggregates'
export { deleteEntry } from './deleteEntry'
export type { StoredFiles } from './deleteEntry'
export { entryTextAt } from './entryText'
export { loadKbConfig } from './kbConfig'
export { replaceEntryMetadata, updateEntry } from './knowledge'
export type { KnowledgeDeps } from './knowledge'
