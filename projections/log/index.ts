/**
 * Projectors of the audit trail, undo, the event stream and webhooks. What other capabilities and layers may use of
 * them: the projectors, which its capability's module registers (app/capabilities). The rest is log's own.
 */
export { auditProjector } from './audit'
export { webhooksProjector } from './webhooks'
