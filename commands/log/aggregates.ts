import { undo } from '../../domain/log/undo'
import { webhook } from '../../domain/log/webhook'
import { aggregate } from '../handle'
import { streams } from '../streams'

// The log's aggregates, each decider bound to its streams' name.

export const undos = aggregate(undo, streams.undo)
export const webhooks = aggregate(webhook, streams.webhook)
