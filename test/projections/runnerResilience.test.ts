import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import pino from 'pino'
import type { Database } from '../../adapters/db'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import type { Projector } from '../../projections/projector'
import { installProjector } from '../../projections/projector'
import { DependencyUnavailable } from '../../adapters/unavailable'
import { ProjectionRunner } from '../../projections/runner'
import { event } from '../contract/eventstore'
import { testPglite } from '../../testkit/db'
import { silent } from '../helpers/silentLog'

// Each test runs the runner on a database and an event store of its own: the suite needs no service, no hooks.
const test = suite('projections: runner, idempotence, rebuild (a projector that fails, waits or changed)')

test(
  'a projector that throws stops at that event, logs its position, and never skips it; the others sharing ' +
    'its batches go on',
  async () => {
    const db = await testPglite()
    const store = await PostgresEventStore.open(db)
    const lines: any[] = []
    const log = pino({ level: 'error' }, { write: (s: string) => void lines.push(JSON.parse(s)) })
    const seen: number[] = []
    const fragile: Projector = {
      name: 'fragile',
      version: 1,
      tables: ['fragile_rows'],
      schema: 'CREATE TABLE fragile_rows (position bigint PRIMARY KEY)',
      handles: ['Good', 'Bad'],
      async apply(tx, e) {
        if (e.type === 'Bad') throw new Error('cannot apply Bad')
        seen.push(e.position)
        await tx.query('INSERT INTO fragile_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.position])
      },
    }
    const healthy: Projector = {
      name: 'healthy',
      version: 1,
      tables: ['healthy_rows'],
      schema: 'CREATE TABLE healthy_rows (position bigint PRIMARY KEY)',
      handles: ['Good', 'Bad'],
      async apply(tx, e) {
        await tx.query('INSERT INTO healthy_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.position])
      },
    }
    await store.append('s-1', [event('Good')], 'no_stream')
    const bad = await store.append('s-1', [event('Bad')], 0)
    await store.append('s-1', [event('Good')], 1)
    const runner = new ProjectionRunner(db, store, [fragile, healthy], log)
    await runner.start()
    const reached = await runner.waitFor(bad.position + 1, 1500)
    assert.is(reached, false)
    const [status, other] = runner.statuses()
    assert.equal([other.state, other.position], ['running', bad.position + 1])
    assert.is((await db.pool.query('SELECT count(*)::int AS n FROM healthy_rows')).rows[0].n, 3)
    assert.is(status.state, 'failed')
    assert.is(status.error?.position, bad.position)
    assert.is(lines[0]?.position, bad.position)
    assert.is(lines[0]?.projector, 'fragile')
    const rows = await db.pool.query('SELECT position FROM fragile_rows')
    const cp = await db.pool.query("SELECT position FROM projection_checkpoints WHERE name = 'fragile'")
    // The batch with the bad event rolled back whole: nothing after the last good checkpoint.
    assert.ok(cp.rows[0].position < bad.position)
    assert.ok(rows.rows.every((r: any) => r.position <= cp.rows[0].position))
    await runner.stop()
    await store.close()
    await db.close()
  },
)

test('a projector whose outside dependency is down waits and tries again; it catches up when it answers', async () => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  let up = false
  let tries = 0
  const mirror: Projector = {
    name: 'mirror',
    version: 1,
    tables: ['mirror_rows'],
    schema: 'CREATE TABLE mirror_rows (position bigint PRIMARY KEY)',
    handles: ['Good'],
    async apply(tx, e) {
      await tx.query('INSERT INTO mirror_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.position])
      tries++
      if (!up) throw new DependencyUnavailable('Elasticsearch', 'connect ECONNREFUSED')
    },
  }
  const last = await store.append('s-3', [event('Good'), event('Good')], 'no_stream')
  const runner = new ProjectionRunner(db, store, [mirror], silent)
  await runner.start()
  for (let i = 0; i < 100 && runner.statuses()[0].state !== 'waiting'; i++) await new Promise((r) => setTimeout(r, 20))
  const [waiting] = runner.statuses()
  assert.is(waiting.state, 'waiting')
  assert.match(waiting.error!.message, /Elasticsearch is unreachable/)
  assert.ok(Date.parse(waiting.retryAt!) > Date.now() - 1000)
  // Nothing of the batch was kept while it waited.
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM mirror_rows')).rows[0].n, 0)
  const before = tries
  up = true
  assert.ok(await runner.waitFor(last.position, 10_000), 'caught up once the dependency answered')
  assert.ok(tries > before)
  assert.equal([runner.statuses()[0].state, runner.statuses()[0].error], ['running', undefined])
  assert.is((await db.pool.query('SELECT count(*)::int AS n FROM mirror_rows')).rows[0].n, 2)
  await runner.stop()
  await store.close()
  await db.close()
})

test('a projector whose version changed is rebuilt from position 0 at start', async () => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  await store.append('s-2', [event('Good'), event('Good')], 'no_stream')
  const p = (version: number): Projector => ({
    name: 'versioned',
    version,
    tables: ['versioned_rows'],
    schema: `CREATE TABLE versioned_rows (position bigint PRIMARY KEY, v int NOT NULL)`,
    handles: ['Good'],
    apply: async (tx, e) =>
      void (await tx.query('INSERT INTO versioned_rows VALUES ($1, $2) ON CONFLICT DO NOTHING', [e.position, version])),
  })
  for (const version of [1, 2]) {
    const runner = new ProjectionRunner(db, store, [p(version)], silent)
    await runner.start()
    assert.ok(await runner.waitFor(await store.headPosition(), 3000))
    await runner.stop()
    const { rows } = await db.pool.query('SELECT DISTINCT v FROM versioned_rows')
    assert.equal(
      rows.map((r: any) => r.v),
      [version],
    )
  }
  await installProjector(db, p(2))
  await store.close()
  await db.close()
})

/**
 * Runs the projector `make` gives (on a database and a log of their own) over the events of the given
 * types, until it has reached the last; then `check` with the database, the runner and the last position.
 */
const runOver = async (
  make: (db: Database) => Projector,
  types: string[],
  check: (db: Database, runner: ProjectionRunner, last: number) => Promise<void>,
) => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  let last = 0
  for (const [i, type] of types.entries())
    last = (await store.append('s-1', [event(type)], i === 0 ? 'no_stream' : i - 1)).position
  const runner = new ProjectionRunner(db, store, [make(db)], silent)
  await runner.start()
  try {
    assert.ok(await runner.waitFor(last, 10_000))
    await check(db, runner, last)
  } finally {
    await runner.stop()
    await db.close()
  }
}

const count = async (db: Database, table: string) =>
  (await db.pool.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n

test('an event whose projector pauses commits in parts: a reader waits for a part, not for the event', async () => {
  const ROWS = 4
  let applying: Promise<number> | undefined
  const slow = (db: Database): Projector => ({
    name: 'slow',
    version: 1,
    tables: ['slow_rows'],
    schema: 'CREATE TABLE slow_rows (n integer PRIMARY KEY)',
    handles: ['Long'],
    async apply(tx, _e, pause) {
      for (let n = 0; n < ROWS; n++) {
        await tx.query('INSERT INTO slow_rows VALUES ($1) ON CONFLICT DO NOTHING', [n])
        // A statement that holds the connection longer than a slice of the runner.
        await tx.query('SELECT pg_sleep(0.03)')
        // A reader arrives while the event's first row is written: it queues for PGlite's one connection.
        if (n === 0) applying ??= count(db, 'slow_rows')
        await pause()
      }
    },
  })
  await runOver(slow, ['Long'], async (db, _runner, last) => {
    // It read between the parts: the rows committed at the first pause, not the event's all.
    assert.is(await applying, 1)
    assert.is(await count(db, 'slow_rows'), ROWS)
    const { rows } = await db.pool.query("SELECT position FROM projection_checkpoints WHERE name = 'slow'")
    assert.is(rows[0].position, last)
  })
})

test('at a cut the checkpoint passes the events applied whole: a failure applies only the rest again', async () => {
  const applied: string[] = []
  let failed = false
  const steps = (): Projector => ({
    name: 'steps',
    version: 1,
    tables: ['step_rows'],
    schema: 'CREATE TABLE step_rows (id text PRIMARY KEY)',
    handles: ['Short', 'Long'],
    async apply(tx, e, pause) {
      applied.push(e.type)
      await tx.query('INSERT INTO step_rows VALUES ($1) ON CONFLICT DO NOTHING', [e.id])
      // Longer than a slice: the runner cuts before the next event.
      await tx.query('SELECT pg_sleep(0.03)')
      if (e.type !== 'Long') return
      await pause()
      if (!failed) {
        failed = true
        throw new Error('fails once, after a cut')
      }
    },
  })
  await runOver(steps, ['Short', 'Long'], async (db) => {
    assert.equal(applied, ['Short', 'Long', 'Long'], 'the event applied whole before the cut is not applied again')
    assert.is(await count(db, 'step_rows'), 2)
  })
})

test('a batch whose checkpoint was written as it paused (a rebuild swapped tables in) is applied again', async () => {
  let applications = 0
  const swapped = (db: Database): Projector => ({
    name: 'swapped',
    version: 1,
    tables: ['swapped_rows'],
    schema: 'CREATE TABLE swapped_rows (n integer PRIMARY KEY)',
    handles: ['Long'],
    async apply(tx, _e, pause) {
      applications++
      await tx.query('INSERT INTO swapped_rows VALUES (0) ON CONFLICT DO NOTHING')
      await tx.query('SELECT pg_sleep(0.03)')
      // Queued for the connection: it runs at the cut, as a rebuild's swap would.
      if (applications === 1)
        void db.pool.query("UPDATE projection_checkpoints SET updated_at = now() WHERE name = 'swapped'")
      await pause()
      await tx.query('INSERT INTO swapped_rows VALUES (1) ON CONFLICT DO NOTHING')
    },
  })
  await runOver(swapped, ['Long'], async (db, runner) => {
    assert.is(applications, 2, 'stopped at the cut, then applied again')
    assert.is(await count(db, 'swapped_rows'), 2)
    assert.equal(runner.statuses()[0].state, 'running')
  })
})

test.run()
