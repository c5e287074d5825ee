import type { Database } from '../db'
import type { Logger } from '../logger'
import type { EventStore } from './port'
import { PostgresEventStore } from './postgres'

/**
 * EventStoreDB when its URL is set (its client, with a native part, is loaded only then); else the
 * event tables in the service's database.
 */
export const openEventStore = async (
  db: Database,
  eventStoreUrl?: string,
  log?: Pick<Logger, 'warn'>,
): Promise<EventStore> =>
  eventStoreUrl
    ? (await import('./kurrent')).KurrentEventStore.open(eventStoreUrl, db, log)
    : PostgresEventStore.open(db)

/** Which engine keeps the events, as /health names it. */
export const eventStoreEngine = (db: Database, eventStoreUrl?: string) =>
  eventStoreUrl ? 'eventstoredb' : db.kind === 'postgres' ? 'postgres' : 'pglite'
