/**
 * Projectors of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and layers may use of them: the projectors, which projections/index.ts runs.
 * The rest is log's own.
 */
export { auditProjector } from './audit'
export { receiptsProjector } from './receipts'
export { webhooksProjector } from './webhooks'
