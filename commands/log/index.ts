/**
 * Commands of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and layers may use of them: signing a receipt, which search hands out with its results.
 * The rest is log's own.
 */
export { signReceipt } from './receiptToken'
export type { ReceiptClaim } from './receiptToken'
