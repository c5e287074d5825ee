import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import { holdLease } from '../../adapters/lease'
import { createLogger } from '../../adapters/logger'
import { freshPostgres, serverUrl } from '../../testkit/db'
import { until } from '../helpers/until'

// Leases on the PostgreSQL server: one holder at a time per database, a new holder when the old one
// stops or loses its connection, and work that fails to start gives the lease back.
const test = suite<{ db: Database; other: Database }>('leases (session advisory locks)')
const log = createLogger('silent')
const RETRY = 100

/** Work that records whether it runs. */
const job = () => {
  const state = { running: 0, starts: 0 }
  const work = async () => {
    state.running++
    state.starts++
    return async () => {
      state.running--
    }
  }
  return { state, work }
}

if (!serverUrl) {
  test.skip('leases (TEST_DATABASE_URL unset)', () => undefined)
} else {
  const server = serverUrl
  test.before(async (ctx) => {
    ctx.db = await freshPostgres(server, 4)
    ctx.other = await freshPostgres(server, 4)
  })
  test.after(async ({ db, other }) => {
    await db.close()
    await other.close()
  })

  test('one holder at a time; the waiting one takes over when the holder stops', async ({ db }) => {
    const a = job()
    const b = job()
    const first = holdLease(db, 'jobs', log, a.work, RETRY)
    await first.started
    const second = holdLease(db, 'jobs', log, b.work, RETRY)
    await second.started
    assert.equal([first.held(), second.held(), a.state.running, b.state.running], [true, false, 1, 0])
    await new Promise((r) => setTimeout(r, RETRY * 3))
    assert.is(b.state.starts, 0, 'the waiting one does not start while the lock is held')
    await first.stop()
    assert.is(a.state.running, 0)
    await until('the second takes over', () => second.held() && b.state.running === 1)
    await second.stop()
    assert.is(b.state.running, 0)
  })

  test('the same name on another database is another lease', async ({ db, other }) => {
    const a = job()
    const b = job()
    const here = holdLease(db, 'jobs', log, a.work, RETRY)
    const there = holdLease(other, 'jobs', log, b.work, RETRY)
    await Promise.all([here.started, there.started])
    assert.equal([here.held(), there.held()], [true, true])
    await Promise.all([here.stop(), there.stop()])
  })

  test('work that fails to start gives the lease back and is tried again', async ({ db }) => {
    let attempts = 0
    const lease = holdLease(
      db,
      'flaky',
      log,
      async () => {
        attempts++
        if (attempts < 3) throw new Error('not yet')
        return async () => undefined
      },
      RETRY,
    )
    await lease.started
    assert.is(lease.held(), false)
    // Meanwhile another process could take it: the lock was given back.
    const probe = job()
    const other = holdLease(db, 'flaky', log, probe.work, RETRY)
    await other.started
    assert.is(other.held(), true)
    await other.stop()
    await until('the flaky work starts on a later try', () => lease.held())
    assert.is(attempts, 3)
    await lease.stop()
  })

  test('a holder whose connection is cut stops its work; the lease moves on', async ({ db }) => {
    const a = job()
    const b = job()
    const first = holdLease(db, 'cut', log, a.work, 5000)
    await first.started
    const second = holdLease(db, 'cut', log, b.work, RETRY)
    await second.started
    assert.equal([first.held(), second.held()], [true, false])
    // The server ends the holder's session (as a network failure or a killed backend would).
    await db.pool.query(
      `SELECT pg_terminate_backend(pid) FROM pg_locks
       WHERE locktype = 'advisory' AND granted
         AND objid = (hashtext('kb-lease:' || current_database() || ':cut')::bigint & 4294967295)`,
    )
    await until('the holder stops its work', () => a.state.running === 0 && !first.held())
    await until('the other process takes the lease', () => second.held() && b.state.running === 1)
    await Promise.all([first.stop(), second.stop()])
    assert.equal([a.state.running, b.state.running], [0, 0])
  })
}

test.run()
