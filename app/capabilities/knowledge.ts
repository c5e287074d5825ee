import {
  deprecatedUploadRoutes,
  entryRoutes,
  entryTools,
  folderRoutes,
  ingestionRoutes,
  kbConfigRoutes,
  knowledgeOperatorRoutes,
} from '../../api/knowledge'
import { knowledgeStreams } from '../../commands/knowledge'
import { knowledgeProjector, tasksProjector } from '../../projections/knowledge'
import type { Capability } from '../capability'

/** Entries, folders, ingestion tasks, URL sync, the knowledge base's configuration and admission. */
export const knowledge: Capability = {
  name: 'knowledge',
  uses: ['accounts'],
  streams: knowledgeStreams,
  projectors: () => [knowledgeProjector, tasksProjector],
  routes: [
    ...knowledgeOperatorRoutes,
    ...folderRoutes,
    ...kbConfigRoutes,
    ...ingestionRoutes,
    ...deprecatedUploadRoutes,
    ...entryRoutes,
  ],
  tools: entryTools,
  mounts: [],
}
