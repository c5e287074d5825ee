/**
 * Background work of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and layers may use of it: the webhook delivery loop the wiring starts.
 * The rest is log's own.
 */
export { startWebhookDelivery } from './webhooks'
