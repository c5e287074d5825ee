import { accessRoutes, auditRoutes, eventRoutes, logOperatorRoutes, undoRoutes, webhookRoutes } from '../../api/log'
import { logStreams } from '../../commands/log'
import { auditProjector, webhooksProjector } from '../../projections/log'
import type { Capability } from '../capability'

/** The audit trail, undo, the event stream, webhooks and the access report. */
export const log: Capability = {
  name: 'log',
  uses: ['knowledge', 'pages', 'accounts'],
  streams: logStreams,
  projectors: () => [auditProjector, webhooksProjector],
  routes: [...logOperatorRoutes, ...auditRoutes, ...eventRoutes, ...webhookRoutes, ...accessRoutes, ...undoRoutes],
  tools: [],
  mounts: [],
}
