import pg from 'pg'
import type { Database } from './db'
import type { Logger } from './logger'

/** How often a process waiting for a lease asks for it again: a dead holder's work moves within this. */
export const LEASE_RETRY_MS = 2000

/** What holding a lease starts: it answers how to stop what it started. */
export type LeasedWork = () => Promise<() => Promise<void>>

export interface Lease {
  /** Whether this process holds the lease and runs its work now. */
  held(): boolean
  /** Resolves once the first attempt is over (the work started, or the lease is held elsewhere). */
  started: Promise<void>
  /** Stops the work (if held) and gives the lease up. */
  stop(): Promise<void>
}

/**
 * Runs `work` in one process of the cluster at a time: the holder of a session advisory lock named
 * `name` (and the database), taken on a connection of its own. The lock goes with the connection, so
 * when the holder dies or its connection fails the lock is free, and a process waiting for it takes
 * over within LEASE_RETRY_MS. A holder whose connection fails stops its work and asks again; work
 * that fails to start gives the lock back. On the embedded database one process holds everything,
 * so the work just runs.
 */
export const holdLease = (db: Database, name: string, log: Logger, work: LeasedWork, retryMs = LEASE_RETRY_MS) => {
  let stopped = false
  let held = false
  let stopWork: (() => Promise<void>) | undefined
  let client: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined

  /** Stops the work and gives the lock back (its connection closed). */
  const drop = async () => {
    held = false
    const stopping = stopWork
    stopWork = undefined
    await stopping?.().catch((error: Error) => log.error({ err: error, lease: name }, 'leased work failed to stop'))
    const c = client
    client = undefined
    await c?.end().catch(() => undefined)
  }

  const attempt = async () => {
    if (stopped || held) return
    const c = new pg.Client({ connectionString: db.url, keepAlive: true })
    let lost = false
    c.on('error', (error) => {
      lost = true
      log.warn({ err: error, lease: name }, 'the lease connection failed; the leased work stops')
      // Work running under this connection stops (work still starting is stopped once it has started).
      if (client === c && stopWork) void drop().then(schedule)
    })
    try {
      await c.connect()
      // Advisory locks are the server's, not a database's: the key names this database too.
      const { rows } = await c.query<{ ok: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext('kb-lease:' || current_database() || ':' || $1)::bigint) AS ok",
        [name],
      )
      if (!rows[0]?.ok || stopped) {
        await c.end().catch(() => undefined)
        return schedule()
      }
      client = c
      held = true
      log.info({ lease: name }, 'lease taken')
      stopWork = await work()
      if (lost || stopped) {
        await drop()
        schedule()
      }
    } catch (error) {
      log.warn({ err: error, lease: name }, 'could not take the lease or start its work; asking again')
      await drop()
      await c.end().catch(() => undefined)
      schedule()
    }
  }

  let inFlight: Promise<void> = Promise.resolve()
  const schedule = () => {
    if (stopped || held || timer) return
    timer = setTimeout(() => {
      timer = undefined
      inFlight = attempt()
    }, retryMs)
  }

  if (db.url === undefined) {
    inFlight = work().then((stop) => {
      held = true
      stopWork = stop
    })
  } else inFlight = attempt()

  const lease: Lease = {
    held: () => held,
    started: inFlight,
    stop: async () => {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = undefined
      // An attempt in flight finishes first (it sees `stopped` and gives back what it took).
      await inFlight.catch(() => undefined)
      await drop()
    },
  }
  return lease
}
