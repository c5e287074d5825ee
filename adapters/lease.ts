import pg from 'pg'
import type { Database } from './db'
import type { Logger } from './logger'

/** How often a process waiting for a lease asks for it again: a dead holder's work moves within this. */
export const LEASE_RETRY_MS = 2000

/** What holding a lease starts: it answers how to stop what it started. */
export type LeasedWork = () => Promise<() => Promise<void>>

export interface Lease {
  /** Whether this process holds the lease now. */
  held(): boolean
  /** Stops the work (if held) and gives the lease up. */
  stop(): Promise<void>
}

/**
 * Runs `work` in one process of the cluster at a time: the holder of a session advisory lock named
 * `name`, taken on a connection of its own. The lock goes with the connection, so when the holder
 * dies (or its connection does) the lock is free, and a process waiting for it takes over within
 * LEASE_RETRY_MS. On the embedded database one process holds everything, so the work just runs.
 */
export const holdLease = (db: Database, name: string, log: Logger, work: LeasedWork, retryMs = LEASE_RETRY_MS) => {
  let held = false
  let stopped = false
  let stopWork: (() => Promise<void>) | undefined
  let client: pg.Client | undefined
  let timer: NodeJS.Timeout | undefined

  const release = async () => {
    held = false
    const stopping = stopWork
    stopWork = undefined
    await stopping?.().catch((error: Error) => log.error({ err: error, lease: name }, 'leased work failed to stop'))
  }

  const attempt = async () => {
    timer = undefined
    if (stopped) return
    try {
      if (!client) {
        const c = new pg.Client({ connectionString: db.url })
        // The lock went with the connection: stop the work, and ask again (another process may hold it by then).
        c.on('error', (error) => {
          log.warn({ err: error, lease: name }, 'the lease connection failed; the leased work stops')
          if (client === c) client = undefined
          void release().then(schedule)
        })
        await c.connect()
        client = c
      }
      const { rows } = await client.query<{ ok: boolean }>(
        // Advisory locks are the server's, not a database's: the key names this database too.
        "SELECT pg_try_advisory_lock(hashtext('kb-lease:' || current_database() || ':' || $1)::bigint) AS ok",
        [name],
      )
      if (rows[0]?.ok && !stopped) {
        held = true
        log.info({ lease: name }, 'lease taken')
        stopWork = await work()
        return
      }
    } catch (error) {
      log.warn({ err: error, lease: name }, 'could not ask for the lease; asking again')
      await client?.end().catch(() => undefined)
      client = undefined
    }
    schedule()
  }
  const schedule = () => {
    if (!stopped && !held && !timer) timer = setTimeout(() => void attempt(), retryMs)
  }

  const started =
    db.url === undefined
      ? work().then((stop) => {
          held = true
          stopWork = stop
        })
      : attempt()

  const lease: Lease & { started: Promise<void> } = {
    held: () => held,
    started,
    stop: async () => {
      stopped = true
      if (timer) clearTimeout(timer)
      await started
      await release()
      await client?.end().catch(() => undefined)
      client = undefined
    },
  }
  return lease
}
