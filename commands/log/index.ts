/**
 * Commands of the audit trail, receipts, undo, the event stream and webhooks.
 * What other capabilities and layers may use of them: signing a receipt, which search hands out with its results, and
 * reading one, which search's comparison of an answer with now starts from.
 * The rest is log's own.
 */
export { readReceipt } from './receipts'
export { signReceipt } from './receiptToken'
export type { ReceiptClaim } from './receiptToken'
