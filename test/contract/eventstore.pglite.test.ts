import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { testPglite } from '../../testkit/db'
import { eventStoreContract } from './eventstore'

eventStoreContract('postgres adapter on PGlite', async () => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  return { store, close: async () => (await store.close(), await db.close()) }
}).run()
