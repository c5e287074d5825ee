/**
 * Routes of the audit trail, undo, the event stream and webhooks. What other capabilities and layers may use of
 * them: the routes its capability's module registers (app/capabilities). The rest is log's own.
 */
export { accessRoutes } from './access'
export { auditRoutes } from './audit'
export { eventRoutes } from './events'
export { logOperatorRoutes } from './operators'
export { undoRoutes } from './undo'
export { webhookRoutes } from './webhooks'
