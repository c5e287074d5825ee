import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { type Client, type Database, inTransaction } from '../adapters/db'
import type { EventStore, RecordedEvent } from '../adapters/eventstore/port'
import { type Projector, checkpointSchema } from './projector'

export const BATCH = 1000

export interface ProjectorStatus {
  name: string
  state: 'starting' | 'running' | 'rebuilding' | 'failed' | 'stopped'
  position: number
  error?: { message: string; position: number; type: string }
}

/** Applies a batch to the projector's tables; returns the checkpoint it recorded. */
export const applyBatch = async (tx: Client, projector: Projector, events: RecordedEvent[], after: number) => {
  let position = after
  for (const event of events) {
    if (event.position <= after) continue
    if (projector.handles === 'all' || projector.handles.includes(event.type)) {
      try {
        await projector.apply(tx, event)
      } catch (error) {
        throw new ProjectionError(projector.name, event, error)
      }
    }
    position = event.position
  }
  return position
}

export class ProjectionError extends Error {
  constructor(readonly projector: string, readonly event: RecordedEvent, readonly reason: unknown) {
    super(`projector ${projector} failed at position ${event.position} (${event.type}): ${(reason as Error)?.message ?? reason}`)
  }
}

/** Creates a projector's tables in the current search_path schema and its checkpoint row. */
export const installProjector = async (db: Database, projector: Projector) => {
  await inTransaction(db.pool, async (tx) => {
    await tx.query(checkpointSchema)
    const { rows } = await tx.query<{ version: number }>('SELECT version FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [projector.name])
    if (rows[0]?.version === projector.version) return
    // New projector, or its meaning changed: start its tables again from position 0.
    for (const table of projector.tables) await tx.query(`DROP TABLE IF EXISTS public.${table} CASCADE`)
    await tx.query('SET LOCAL search_path TO public')
    await tx.query(projector.schema)
    await tx.query(
      `INSERT INTO projection_checkpoints (name, position, version) VALUES ($1, 0, $2)
       ON CONFLICT (name) DO UPDATE SET position = 0, version = EXCLUDED.version, updated_at = now()`,
      [projector.name, projector.version],
    )
  })
}

/**
 * Feeds each projector from its checkpoint: catch up, then live. Each batch's writes and the
 * checkpoint commit in one transaction. A projector that throws stops, logged with the position.
 */
export class ProjectionRunner {
  private readonly status = new Map<string, ProjectorStatus>()
  private readonly progress = new EventEmitter()
  private stopping = false
  private loops: Promise<void>[] = []
  private wakers = new Set<() => void>()
  private offAppend?: () => void
  /** Reads in flight by position: projectors at the same position share one read of the log. */
  private reads = new Map<number, Promise<RecordedEvent[]>>()

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    readonly projectors: Projector[],
    private readonly log: Logger,
  ) {
    this.progress.setMaxListeners(0)
  }

  async start() {
    for (const p of this.projectors) {
      await installProjector(this.db, p)
      this.status.set(p.name, { name: p.name, state: 'starting', position: 0 })
    }
    this.offAppend = this.store.onAppend(() => this.wakeAll())
    this.loops = this.projectors.map((p) => this.run(p))
  }

  private wakeAll() {
    for (const wake of this.wakers) wake()
  }

  private waitForAppend(ms: number) {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.wakers.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.wakers.add(done)
    })
  }

  private async run(projector: Projector) {
    const status = this.status.get(projector.name)!
    status.position = await this.checkpoint(projector.name)
    status.state = 'running'
    this.progress.emit('progress')
    let saved = status.position
    while (!this.stopping) {
      const idle = this.waitForAppend(1000)
      let events: RecordedEvent[] = []
      try {
        events = await this.readAfter(status.position)
        const handled = events.some((e) => projector.handles === 'all' || projector.handles.includes(e.type))
        if (events.length > 0 && !handled) {
          // Nothing to write: move on in memory; the checkpoint row catches up when idle.
          status.position = events[events.length - 1].position
          this.progress.emit('progress')
        } else if (events.length === 0 && saved < status.position) {
          status.position = saved = await this.saveCheckpoint(projector.name, status.position)
        } else if (events.length > 0) {
          status.position = saved = await inTransaction(this.db.pool, async (tx) => {
            const { rows } = await tx.query<{ position: number }>('SELECT position FROM projection_checkpoints WHERE name = $1 FOR UPDATE', [projector.name])
            // A rebuild may have swapped in tables that are ahead of what we read.
            const after = Math.max(rows[0].position, status.position)
            const position = await applyBatch(tx, projector, events, after)
            if (position > rows[0].position) {
              await tx.query('UPDATE projection_checkpoints SET position = $2, updated_at = now() WHERE name = $1', [projector.name, position])
            }
            return position
          })
          this.progress.emit('progress', projector.name)
        }
      } catch (error) {
        const failure = error instanceof ProjectionError ? error : undefined
        status.state = 'failed'
        status.error = { message: (error as Error).message, position: failure?.event.position ?? status.position, type: failure?.event.type ?? '' }
        this.log.error({ projector: projector.name, position: status.error.position, eventType: status.error.type, err: error }, 'projector stopped')
        this.progress.emit('progress')
        return
      }
      if (events.length < BATCH) await idle
    }
    status.state = 'stopped'
  }

  private readAfter(after: number) {
    let read = this.reads.get(after)
    if (!read) {
      read = this.store.readAll({ after, maxCount: BATCH }).finally(() => this.reads.delete(after))
      this.reads.set(after, read)
    }
    return read
  }

  /** Records a position reached through events the projector does not handle. */
  private async saveCheckpoint(name: string, position: number) {
    const { rows } = await this.db.pool.query<{ position: number }>(
      'UPDATE projection_checkpoints SET position = GREATEST(position, $2), updated_at = now() WHERE name = $1 RETURNING position',
      [name, position],
    )
    return rows[0]?.position ?? position
  }

  private async checkpoint(name: string) {
    const { rows } = await this.db.pool.query<{ position: number }>('SELECT position FROM projection_checkpoints WHERE name = $1', [name])
    return rows[0]?.position ?? 0
  }

  /** Calls `listener` whenever the named projector has written a batch; returns the way to stop. */
  onWritten(name: string, listener: () => void) {
    const filtered = (written?: string) => written === name && listener()
    this.progress.on('progress', filtered)
    return () => void this.progress.off('progress', filtered)
  }

  statuses(): ProjectorStatus[] {
    return [...this.status.values()].map((s) => ({ ...s }))
  }

  /** Resolves true once every projector has reached `position`, false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const reached = () => [...this.status.values()].every((s) => s.position >= position)
    if (position <= 0 || reached()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const check = () => {
        if (!reached()) return
        cleanup()
        resolve(true)
      }
      const timer = setTimeout(() => (cleanup(), resolve(false)), timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.progress.off('progress', check)
      }
      this.progress.on('progress', check)
    })
  }

  /** Runs every projector up to the current head, then stops: for one-shot operator commands. */
  async catchUp(timeoutMs = 600_000) {
    await this.start()
    const reached = await this.waitFor(await this.store.headPosition(), timeoutMs)
    await this.stop()
    if (!reached) throw new Error(`projections did not reach the head: ${JSON.stringify(this.statuses())}`)
  }

  async stop() {
    this.stopping = true
    this.offAppend?.()
    this.wakeAll()
    await Promise.all(this.loops)
  }
}
