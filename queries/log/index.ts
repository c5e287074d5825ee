/**
 * Reads of the audit trail, receipts, undo, the event stream and webhooks.
 * No other capability or layer uses any of them: log's own folders import the modules directly.
 */
export {}
