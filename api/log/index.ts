/**
 * Routes and tools of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './answers'
export * from './audit'
export * from './events'
export * from './operators'
export * from './receipts'
export * from './undo'
export * from './webhooks'
