import { undo } from '../../domain/log/undo'
import { webhook } from '../../domain/log/webhook'
import { aggregate } from '../handle'
import { type StreamCategory, category } from '../streams'

// The log's aggregates, each decider bound to its streams' category.

export const undos = aggregate(undo, category('undo'))
export const webhooks = aggregate(webhook, category('webhook'))
/** A webhook's delivery attempts, apart from its own stream so that loading it stays short. */
export const webhookDeliveries = category('webhookdeliveries')

/** The log's categories, read by those who manage the workspace. */
export const logStreams: StreamCategory[] = [undos, webhooks, webhookDeliveries]
