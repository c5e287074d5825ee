/**
 * Projectors of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './audit'
export * from './receipts'
export * from './webhooks'
