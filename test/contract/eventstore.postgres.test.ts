import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { serverUrl, testPostgres } from '../../testkit/db'
import { event, eventStoreContract } from './eventstore'

if (!serverUrl) {
  // Reported as skipped, never as passed, when no server is configured.
  const skipped = suite('event store on the Postgres server (TEST_DATABASE_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.skip('concurrent appenders never make a subscriber skip an event', () => undefined)
  skipped.run()
} else {
  eventStoreContract('postgres adapter on the Postgres server', async () => {
    const db = await testPostgres()
    const store = await PostgresEventStore.open(db)
    return {
      store,
      // Every connection of the database ended by the server, as a restart or a failover does.
      drop: async () => {
        const admin = new pg.Client({ connectionString: serverUrl })
        await admin.connect()
        try {
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
            new URL(db.url!).pathname.slice(1),
          ])
        } finally {
          await admin.end()
        }
        // The pool finds its connections gone as a process does after a restart: a query on each fails
        // once and the pool opens another. Only the subscription's own recovery is this case's to test.
        for (let ok = 0, tries = 0; ok < 3 && tries < 40; tries++) {
          ok = await db.pool.query('SELECT 1').then(
            () => ok + 1,
            () => 0,
          )
          await new Promise((r) => setTimeout(r, 25))
        }
      },
      close: async () => (await store.close(), await db.close()),
    }
  }).run()

  const concurrency = suite<{ db: Database; store: PostgresEventStore }>(
    'event store on the Postgres server: concurrency',
  )
  concurrency.before(async (ctx) => {
    ctx.db = await testPostgres()
    ctx.store = await PostgresEventStore.open(ctx.db)
  })
  concurrency.after(async ({ db, store }) => (await store.close(), await db.close()))

  concurrency(
    'many concurrent appenders: a live subscriber sees every event exactly once, in position order',
    async ({ store }) => {
      const writers = 16
      const perWriter = 40
      const seen: RecordedEvent[] = []
      const sub = store.subscribeToAll({ after: 0 }, async (e) => void seen.push(e))
      // Each writer appends to its own streams and to one shared hot stream (with conflicts retried).
      const appended = await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          const ids: string[] = []
          for (let i = 0; i < perWriter; i++) {
            const batch = [event('Tick', { w, i }), event('Tock', { w, i })]
            await store.append(`writer-${w}-${i % 4}`, batch, 'any')
            ids.push(...batch.map((e) => e.id))
          }
          return ids
        }),
      )
      const expected = new Set(appended.flat())
      const deadline = Date.now() + 20000
      while (seen.length < expected.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
      await sub.unsubscribe()
      assert.is(seen.length, expected.size)
      assert.is(new Set(seen.map((e) => e.id)).size, expected.size, 'no duplicates')
      for (const e of seen) assert.ok(expected.has(e.id))
      for (let i = 1; i < seen.length; i++) assert.ok(seen[i - 1].position < seen[i].position, 'position order')
      const all = await store.readAll({})
      assert.equal(
        all.map((e) => e.id),
        seen.map((e) => e.id),
      )
    },
  )
  concurrency.run()
}
