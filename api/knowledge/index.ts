/**
 * Routes and tools of entries, folders, ingestion tasks, sync and the knowledge base's configuration. What other
 * capabilities and layers may use of them: the routes and tools its capability's module registers
 * (app/capabilities), and the dependencies log's undo routes hand to knowledge's commands. The rest is knowledge's
 * own.
 */
export { deprecatedUploadRoutes } from './deprecatedUploads'
export { entryRoutes } from './entries'
export { entryTools } from './entryTools'
export { folderRoutes } from './folders'
export { ingestionRoutes } from './ingestion'
export { kbConfigRoutes } from './kbConfig'
export { knowledgeOperatorRoutes } from './operators'
export { knowledgeDeps } from './shapes'
