/**
 * Commands of the audit trail, undo and webhooks.
 * What other capabilities and layers may use of them: the log's stream categories, which the service declares.
 * The rest is log's own.
 */
export { logStreams } from './aggregates'
