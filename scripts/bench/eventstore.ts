// Event store and projection throughput on PGlite and on the Postgres server, each against a
// plain INSERT loop into an unindexed table of the same database, measured in the same run.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pino from 'pino'
import { type Database, openPglite } from '../../adapters/db'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import type { EventData } from '../../adapters/eventstore/port'
import { accountsProjector } from '../../projections/accounts'
import { checkpointSchema } from '../../projections/projector'
import { rebuildProjector } from '../../projections/rebuild'
import { freshPostgres } from '../../testkit/db'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const REBUILD_EVENTS = Number(process.env.BENCH_REBUILD_EVENTS ?? 100_000)
const serverUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const metadata = {
  actor: { kind: 'system' as const, process: 'bench' },
  correlationId: randomUUID(),
  causationId: null,
  at: new Date().toISOString(),
}
const eventOf = (type: string, data: unknown): EventData => ({ id: randomUUID(), type, data, metadata })

/** Runs `op` from `writers` concurrent loops for SECONDS; answers operations per second. */
const rate = async (writers: number, op: (w: number, i: number) => Promise<void>) => {
  const until = Date.now() + SECONDS * 1000
  let count = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; Date.now() < until; i++) {
        await op(w, i)
        count++
      }
    }),
  )
  return count / (Number(process.hrtime.bigint() - started) / 1e9)
}

const benchOne = async (label: string, db: Database) => {
  const store = await PostgresEventStore.open(db)
  await db.pool.query('CREATE TABLE IF NOT EXISTS bench_plain (id uuid, stream text, data jsonb)')
  const payload = JSON.stringify({ userId: randomUUID(), email: 'bench@example.com', name: 'Bench' })
  const row: Record<string, number> = {}
  for (const writers of [1, 8]) {
    const plain = await rate(writers, () =>
      db.pool.query('INSERT INTO bench_plain VALUES ($1, $2, $3)', [randomUUID(), 's', payload]).then(() => undefined),
    )
    const appends = await rate(writers, (w, i) =>
      store
        .append(`bench-${w}-${i}-${randomUUID()}`, [eventOf('Benched', { w, i })], 'no_stream')
        .then(() => undefined),
    )
    row[`plain INSERT/s, ${writers} writer(s)`] = plain
    row[`appends/s, ${writers} writer(s)`] = appends
    row[`append ratio, ${writers} writer(s)`] = appends / plain
  }
  // A log of REBUILD_EVENTS events the accounts projector applies, appended in batches.
  const batch = 500
  for (let n = 0; n < REBUILD_EVENTS; n += batch) {
    const events = Array.from({ length: batch }, (_, i) => {
      const id = randomUUID()
      return i % 2 === 0
        ? eventOf('UserRegistered', { userId: id, email: `${id}@example.com`, name: 'Bench' })
        : eventOf('MemberAdded', { workspaceId: 'bench', userId: id, role: 'viewer' })
    })
    await store.append(`bench-log-${n}`, events, 'no_stream')
  }
  const total = await store.headPosition()
  let read = 0
  let t = process.hrtime.bigint()
  for (let after = 0; ; ) {
    const events = await store.readAll({ after, maxCount: 1000 })
    if (events.length === 0) break
    read += events.length
    after = events[events.length - 1].position
  }
  row['read-all events/s'] = read / (Number(process.hrtime.bigint() - t) / 1e9)
  await db.pool.query(checkpointSchema)
  t = process.hrtime.bigint()
  const report = await rebuildProjector(db, store, accountsProjector, pino({ level: 'silent' }))
  row['rebuild events/s'] = report.events / (Number(process.hrtime.bigint() - t) / 1e9)
  row['events in log'] = total
  await store.close()
  return { label, row }
}

const results: { label: string; row: Record<string, number> }[] = []
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-'))
try {
  results.push(
    await benchOne('PGlite (on disk)', await openPglite(dir).then(async (db) => ({ ...db, close: db.close }))),
  )
} finally {
  fs.rmSync(dir, { recursive: true, force: true })
}

try {
  // A fresh database, dropped by close().
  const db = await freshPostgres(serverUrl, 10)
  try {
    results.push(await benchOne('Postgres server', db))
  } finally {
    await db.close()
  }
} catch (error) {
  process.stderr.write(`Postgres server skipped: ${(error as Error).message}\n`)
}

const keys = Object.keys(results[0].row)
const fmt = (k: string, v: number) => (/ratio/.test(k) ? v.toFixed(2) : Math.round(v).toLocaleString('en-US'))
process.stdout.write(
  `\n| measure | ${results.map((r) => r.label).join(' | ')} |\n|---|${results.map(() => '---:').join('|')}|\n`,
)
for (const k of keys) process.stdout.write(`| ${k} | ${results.map((r) => fmt(k, r.row[k])).join(' | ')} |\n`)
process.exit(0)
