import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { type Client, type Database, inSlicedTransaction, inTransaction } from '../adapters/db'
import type { EventStore } from '../adapters/eventstore/port'
import type { Projector } from './projector'
import { BATCH, applyBatch, installProjector } from './projector'

export interface RebuildReport {
  name: string
  events: number
  position: number
  ms: number
}

/** Drops what an interrupted rebuild left behind. */
export const dropShadowSchemas = async (db: Database) => {
  const { rows } = await db.pool.query<{ nspname: string }>(
    "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'kb\\_rebuild\\_%'",
  )
  // On a server another process may be rebuilding now: only shadows a day old are left over.
  const leftOver = (name: string) => {
    const started = Number(/_t(\d+)_[0-9a-f]+$/.exec(name)?.[1] ?? 0)
    return db.url === undefined || Date.now() / 1000 - started > SHADOW_MAX_AGE_S
  }
  for (const r of rows.filter((r) => leftOver(r.nspname)))
    await db.pool.query(`DROP SCHEMA IF EXISTS ${r.nspname} CASCADE`)
}

/** A rebuild's shadow schema older than this is one a crash left behind. */
const SHADOW_MAX_AGE_S = 24 * 3600

/**
 * How long one of a rebuild's transactions should take: the number of events each applies starts
 * at 16, halves when one takes longer and doubles when one takes a quarter of it. On PGlite's one
 * connection every request waits for the transaction in flight (1,000 chunk events held it for
 * seconds). One event that takes longer is cut where its projector pauses.
 */
const SLICE_MS = 100

/** A projector's tables built again in a schema of their own, beside those in service. */
export interface Shadow {
  projector: Projector
  schema: string
  /** The log position its tables reached. */
  position: number
  events: number
  started: number
}

/**
 * Builds a projector's tables from position 0 in a fresh schema while readers (and the live
 * projector) keep using the tables in service; `swapIn` then puts them in service, or `dropShadow`
 * throws them away.
 */
export const buildShadow = async (db: Database, store: EventStore, projector: Projector, log: Logger) => {
  const started = Date.now()
  await installProjector(db, projector)
  const schema =
    `kb_rebuild_${projector.name.replace(/[^a-z0-9_]/gi, '_')}_t${Math.floor(Date.now() / 1000)}_` +
    randomBytes(4).toString('hex')
  await db.pool.query(`CREATE SCHEMA ${schema}`)
  const shadow: Shadow = { projector, schema, position: 0, events: 0, started }
  try {
    await inTransaction(db.pool, async (tx) => {
      await tx.query(inShadow(schema))
      await tx.query(projector.schema)
    })
    await catchUpShadow(db, store, shadow, log)
    return shadow
  } catch (error) {
    await dropShadow(db, shadow)
    throw error
  }
}

const inShadow = (schema: string) => `SET LOCAL search_path TO ${schema}, public`

/** Applies to a shadow's tables the events after its position, up to the head of the log. */
export const catchUpShadow = async (db: Database, store: EventStore, shadow: Shadow, log: Logger) => {
  const { projector, schema } = shadow
  let slice = 16
  for (;;) {
    const events = await store.readAll({ after: shadow.position, maxCount: BATCH })
    if (events.length === 0) return
    for (let i = 0; i < events.length; ) {
      const part = events.slice(i, i + slice)
      // The transaction's own time, not the wait for the connection (API queries ahead of it).
      let ms = 0
      // On PGlite, a long event is cut where the projector pauses, each part in the shadow's schema.
      const sliceMs = db.kind === 'pglite' ? SLICE_MS : Number.POSITIVE_INFINITY
      const enter = (tx: Client) => tx.query(inShadow(schema))
      shadow.position = await inSlicedTransaction(db.pool, { sliceMs, resume: enter }, async (tx, pause) => {
        const t0 = Date.now()
        await enter(tx)
        const reached = await applyBatch(tx, projector, part, shadow.position, pause)
        ms = Date.now() - t0
        return reached
      })
      i += part.length
      slice = ms > SLICE_MS ? Math.max(1, slice >> 1) : ms < SLICE_MS / 4 ? Math.min(BATCH, slice * 2) : slice
    }
    shadow.events += events.length
    if (shadow.events % 20000 < BATCH)
      log.info({ projector: projector.name, position: shadow.position, events: shadow.events }, 'rebuilding')
  }
}

/**
 * Puts a shadow's tables in service: reads on to the head of the log, then swaps them in one
 * transaction that holds the projector's checkpoint row, so the live projector resumes on the new
 * tables where they end.
 */
export const swapIn = async (db: Database, store: EventStore, shadow: Shadow, log: Logger): Promise<RebuildReport> => {
  const { projector, schema } = shadow
  try {
    for (;;) {
      await catchUpShadow(db, store, shadow, log)
      const swapped = await inTransaction(db.pool, async (tx) => {
        const { rows } = await tx.query<{ position: number }>(
          'SELECT position FROM projection_checkpoints WHERE name = $1 FOR UPDATE',
          [projector.name],
        )
        // The live projector went past what we replayed: read on and try again.
        if (rows[0].position > shadow.position) return false
        for (const table of projector.tables) {
          await tx.query(`DROP TABLE public.${table} CASCADE`)
          await tx.query(`ALTER TABLE ${schema}.${table} SET SCHEMA public`)
        }
        await tx.query(
          'UPDATE projection_checkpoints SET position = $2, version = $3, updated_at = now() WHERE name = $1',
          [projector.name, shadow.position, projector.version],
        )
        return true
      })
      if (!swapped) continue
      await projector.afterRebuild?.(db)
      const { name } = projector
      return { name, events: shadow.events, position: shadow.position, ms: Date.now() - shadow.started }
    }
  } finally {
    await dropShadow(db, shadow)
  }
}

/** Drops a shadow's schema and what is left in it. */
export const dropShadow = async (db: Database, shadow: Shadow) => {
  await db.pool.query(`DROP SCHEMA IF EXISTS ${shadow.schema} CASCADE`)
}

/** Rebuilds a projector's tables from position 0 beside those in service, then swaps them in. */
export const rebuildProjector = async (db: Database, store: EventStore, projector: Projector, log: Logger) =>
  swapIn(db, store, await buildShadow(db, store, projector, log), log)
