import type { Database } from '../db'
import { KurrentEventStore } from './kurrent'
import type { EventStore } from './port'
import { PostgresEventStore } from './postgres'

/** EventStoreDB when its URL is set; else the event tables in the service's database. */
export const openEventStore = (db: Database, eventStoreUrl?: string): Promise<EventStore> =>
  eventStoreUrl ? KurrentEventStore.open(eventStoreUrl) : PostgresEventStore.open(db)

/** Which engine keeps the events, as /health names it. */
export const eventStoreEngine = (db: Database, eventStoreUrl?: string) =>
  eventStoreUrl ? 'eventstoredb' : db.kind === 'postgres' ? 'postgres' : 'pglite'
