import fs from 'node:fs'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { PglitePgConnection, createPgConfig } from '@electric-sql/pglite/node-postgres'
import { vector } from '@electric-sql/pglite-pgvector'
import { pg_textsearch } from '@electric-sql/pglite-pg_textsearch'
import type { Logger } from './logger'

// Every int8 column (positions, revisions, counts) fits in 2^53.
pg.types.setTypeParser(20, (v) => Number(v))

export type Pool = pg.Pool
export type Client = pg.PoolClient
export type Queryable = Pick<pg.Pool, 'query'>

export interface Database {
  pool: pg.Pool
  kind: 'pglite' | 'postgres'
  /** The URL of a Postgres server, for adapters that need their own connection (LISTEN). */
  url?: string
  /** PGlite: the time (ms) its one connection has spent running statements (background upkeep waits for quiet). */
  busyMs?: () => number
  close(): Promise<void>
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * PGlite allows one process per data directory: a second one opening it (another service, the
 * CLI) lost confirmed writes and could leave files no later start could open. The holder's pid is
 * kept in `<dataDir>.lock`; a lock whose process is gone (a crash) is taken over. Answers the
 * release.
 */
const holdDataDir = (dataDir: string): (() => void) => {
  const file = `${dataDir}.lock`
  for (;;) {
    try {
      fs.writeFileSync(file, String(process.pid), { flag: 'wx' })
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(fs.readFileSync(file, 'utf8'))
      if (pid && pid !== process.pid && alive(pid)) {
        throw new Error(
          `${dataDir} is in use by process ${pid}: PGlite allows one process (reach it through its API, or stop it; ` +
            `if no such process uses it, remove ${file})`,
        )
      }
      fs.rmSync(file, { force: true })
    }
  }
  return () => {
    if (fs.existsSync(file) && fs.readFileSync(file, 'utf8') === String(process.pid)) fs.rmSync(file, { force: true })
  }
}

/**
 * PGlite's own start-up settings, and a write-ahead log kept to 64 MB between checkpoints (PostgreSQL
 * keeps up to 1 GB by default, recycled files included: on a knowledge base of a few MB of text, the
 * larger part of the data directory).
 */
const START_PARAMS = [
  ...(PGlite as unknown as { defaultStartParams: string[] }).defaultStartParams,
  '-c',
  'max_wal_size=64MB',
  '-c',
  'min_wal_size=32MB',
]

export const openPglite = async (dataDir: string | PGlite): Promise<Database> => {
  let db: PGlite
  let release: () => void = () => {}
  if (typeof dataDir === 'string') {
    if (!dataDir.startsWith('memory://')) {
      fs.mkdirSync(dataDir, { recursive: true })
      release = holdDataDir(dataDir)
    }
    db = await PGlite.create({ dataDir, extensions: { vector, pg_textsearch }, startParams: START_PARAMS }).catch(
      (error: Error) => {
        release()
        throw error
      },
    )
  } else db = dataDir
  const pglite = connection(db)
  const busyMs = () => pglite.busyMs
  // pg-pool drops a client whose query failed and makes another. Each gets a bridge of its own:
  // with the one bridge createPgConfig shares, the dropped client's end, emitted later on the
  // bridge's queue, ended the next client too ("Connection terminated unexpectedly").
  class PgliteClient extends pg.Client {
    constructor(config: pg.ClientConfig) {
      super({ ...config, connection: new PglitePgConnection({ pglite }) } as unknown as pg.ClientConfig)
    }
  }
  const pool = new pg.Pool({ ...createPgConfig(pglite), Client: PgliteClient } as unknown as pg.PoolConfig)
  return {
    pool,
    kind: 'pglite',
    busyMs,
    close: async () => {
      await pool.end()
      await db.close()
      release()
    },
  }
}

/** At most this long (ms) of PGlite work runs before the event loop is let through. */
const SLICE_MS = 2

/** Extended-protocol messages that pg always follows with a Sync or a Flush: Parse, Bind, Describe, Execute, Close. */
const PIPELINED = new Set([0x50, 0x42, 0x44, 0x45, 0x43])

const concat = (parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

/**
 * The connection pg talks to, over PGlite. Two things differ from handing PGlite to pg directly:
 *
 * pg writes a parameterised statement as five messages (Parse, Bind, Describe, Execute, Sync) and
 * the bridge runs each through PGlite on its own, paying PGlite's fixed cost per call five times.
 * They are held here until the Sync (or Flush) that ends them and run as one buffer, as a server
 * would read them off a socket; the answers come back together, in order. A small statement costs
 * about half as much.
 *
 * PGlite answers in promises that settle without I/O, so a transaction's statements (and what
 * awaits them) run as one chain of microtasks: while a writer's transaction runs, no request is
 * even read. Once a chain has run SLICE_MS, this lets the event loop through (setImmediate, after
 * the I/O poll), so a search that arrives meanwhile queues for the connection at once. A chain's
 * start is the first call after the loop has turned (a check-phase callback tells).
 */
const connection = (db: PGlite): PGlite & { busyMs: number } => {
  let busyMs = 0
  let since = 0
  let turned = true
  const turn = () => {
    turned = true
  }
  let held: Uint8Array[] = []
  const execProtocolStream: PGlite['execProtocolStream'] = async (message, options) => {
    if (PIPELINED.has(message[0])) {
      held.push(message)
      return []
    }
    const buffer = held.length > 0 ? concat([...held, message]) : message
    held = []
    if (turned) {
      turned = false
      since = performance.now()
      setImmediate(turn)
    } else if (performance.now() - since > SLICE_MS) {
      await new Promise(setImmediate)
    }
    const started = performance.now()
    try {
      return await db.execProtocolStream(buffer, options)
    } finally {
      busyMs += performance.now() - started
    }
  }
  // Everything else is the instance's own (bound to it: its fields are private).
  return new Proxy(db, {
    get: (target, prop) => {
      if (prop === 'execProtocolStream') return execProtocolStream
      if (prop === 'busyMs') return busyMs
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as PGlite & { busyMs: number }
}

export const openPostgres = async (url: string, max = 10, log?: Pick<Logger, 'warn'>): Promise<Database> => {
  const pool = new pg.Pool({ connectionString: url, max })
  // A connection the server ends (a restart, pg_terminate_backend) must not crash the process. The
  // pool listens to its idle clients only: a client lent out (a transaction across awaits) gets a
  // listener of its own for its whole life. Its query in flight fails with the error, and the pool
  // drops the client when it comes back.
  pool.on('error', () => undefined)
  pool.on('connect', (client) =>
    client.on('error', (error) => log?.warn({ err: error.message }, 'a database connection was lost')),
  )
  await pool.query('SELECT 1')
  return { pool, kind: 'postgres', url, close: () => pool.end() }
}

export const openDatabase = (
  config: { databaseUrl?: string; dataDir: string },
  log?: Pick<Logger, 'warn'>,
): Promise<Database> =>
  config.databaseUrl ? openPostgres(config.databaseUrl, 10, log) : openPglite(`${config.dataDir}/pg`)

/** Lets a transaction that fn runs (inSlicedTransaction) commit what it has written and go on in a new one. */
export type Pause = () => Promise<void>

/** Runs fn in a transaction on one client; rolls back when it throws. */
export const inTransaction = <T>(pool: pg.Pool, fn: (client: Client) => Promise<T>): Promise<T> =>
  inSlicedTransaction(pool, { sliceMs: Number.POSITIVE_INFINITY }, (tx) => fn(tx))

/** Where a transaction that inSlicedTransaction runs is cut, and what it does at each cut. */
export interface Slicing {
  /** How long (ms) the transaction holds its connection before a pause commits it. */
  sliceMs: number
  /** Runs before each COMMIT a pause makes (to record how far it got). */
  beforeCommit?(tx: Client): Promise<unknown>
  /** Runs after each BEGIN a pause makes (to take its locks again, or to refuse to go on). */
  resume?(tx: Client): Promise<unknown>
}

/**
 * Runs fn in a transaction that fn may cut where it calls `pause()`: once the transaction has held its
 * connection `sliceMs`, the pause commits, hands the connection back to the pool, so that the queries
 * queued for it run (on PGlite, the only one), then begins again on the next connection the pool gives.
 * What a pause committed stays when fn later throws: fn must be able to run again over what any of its
 * pauses left. `tx` is one object throughout, whichever connection holds the transaction.
 */
export const inSlicedTransaction = async <T>(
  pool: pg.Pool,
  { sliceMs, beforeCommit, resume }: Slicing,
  fn: (tx: Client, pause: Pause) => Promise<T>,
): Promise<T> => {
  let client: Client | undefined = await pool.connect()
  const tx = new Proxy(client, {
    get: (_, prop) => {
      if (!client) throw new Error('the transaction is over')
      const held = client
      const value = Reflect.get(held, prop, held)
      return typeof value === 'function' ? value.bind(held) : value
    },
  })
  const commit = async () => {
    // COMMIT of a transaction that failed answers ROLLBACK, without an error.
    const { command } = await tx.query('COMMIT')
    if (command !== 'COMMIT') throw new Error(`the transaction was rolled back (${command})`)
  }
  let since = performance.now()
  const pause = async () => {
    if (performance.now() - since < sliceMs) return
    await beforeCommit?.(tx)
    await commit()
    client?.release()
    client = undefined
    client = await pool.connect()
    await tx.query('BEGIN')
    await resume?.(tx)
    since = performance.now()
  }
  try {
    await tx.query('BEGIN')
    const result = await fn(tx, pause)
    await commit()
    return result
  } catch (error) {
    await client?.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    client?.release()
    client = undefined
  }
}
