/**
 * Deciders of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './undo'
export * from './webhook'
