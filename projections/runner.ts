import type { Logger } from 'pino'
import { type Client, type Database, inSlicedTransaction } from '../adapters/db'
import type { EventStore, RecordedEvent } from '../adapters/eventstore/port'
import { ProjectionFollower, type Report, announce } from './follow'
import { BATCH, type Projector, applyBatch, handles, installProjector } from './projector'
import { type ProjectorStatus, ProjectorStates } from './states'

/**
 * How often the checkpoint rows of projectors that wrote nothing catch up with the positions
 * they passed in memory. Each is a committed UPDATE; after every write they would be several
 * (every projector that does not handle the event), for a position that only spares a restart
 * the reading of events the projector skips anyway.
 */
const IDLE_CHECKPOINT_MS = 1000

/**
 * A batch's transaction holds the database (PGlite's one connection) from reads: a batch is
 * applied in slices, each its own transaction, sized from the time events took lately so that
 * each commits within this long. An event that alone takes longer is cut where its projector
 * pauses (a long entry's rows go in parts), each part committed once the transaction has held
 * the connection this long. A Postgres server's readers never wait for a writer: there an event
 * is one transaction.
 */
const SLICE_MS = 20

/** The projectors' checkpoints, locked; `row` changes whenever anyone writes one (its xmin). */
const lockCheckpoints = (tx: Client, names: string[]) =>
  tx.query<{ name: string; position: number; row: string }>(
    'SELECT name, position, xmin::text AS row FROM projection_checkpoints WHERE name = ANY($1::text[]) FOR UPDATE',
    [names],
  )

/** Records positions the projectors reached (never moving one back); answers the rows it wrote. */
const saveCheckpoints = (tx: Client, names: string[], positions: number[]) =>
  tx.query<{ name: string; row: string }>(
    `UPDATE projection_checkpoints c SET position = u.position, updated_at = now()
     FROM unnest($1::text[], $2::bigint[]) AS u(name, position) WHERE c.name = u.name AND c.position < u.position
     RETURNING c.name, c.xmin::text AS row`,
    [names, positions],
  )

/**
 * Feeds the projectors from their checkpoints: catch up, then live. One loop reads the log once
 * for all of them and applies a batch to every projector that handles some of it in one
 * transaction, with their checkpoints, so a write costs one read and one commit, not one per
 * projector. When that transaction fails, the batch is applied projector by projector: a
 * projector that throws stops alone, logged with the position, and the others go on.
 */
export class ProjectionRunner {
  private readonly states: ProjectorStates
  private stopping = false
  private loop?: Promise<void>
  private wakers = new Set<() => void>()
  private offAppend?: () => void
  /** Positions recorded in checkpoint rows, by projector. */
  private readonly saved = new Map<string, number>()
  private idleSavedAt = 0
  /** Set while another process runs the projectors and this one follows their positions. */
  private follower?: ProjectionFollower

  constructor(
    private readonly db: Database,
    private readonly store: EventStore,
    readonly projectors: Projector[],
    private readonly log: Logger,
  ) {
    this.states = new ProjectorStates(log)
  }

  /** Whether this process runs the projectors (rather than following another that does). */
  leading() {
    return this.loop !== undefined && !this.follower
  }

  /**
   * Follows projectors that another process runs: their positions come from its notice after each batch, and
   * from the checkpoint rows every second (a notice may be lost), so `waitFor` and `onWritten` work here too.
   * Their tables are installed first, so this process can read them before the other has started.
   */
  async follow() {
    for (const p of this.projectors) await installProjector(this.db, p, { onlyIfMissing: true })
    for (const p of this.projectors) this.states.set(p.name, 'following', 0)
    const names = this.projectors.map((p) => p.name)
    this.follower = new ProjectionFollower(this.db, names, this.log, (report) => this.heard(report))
    await this.follower.start()
  }

  private async stopFollowing() {
    await this.follower?.stop()
    this.follower = undefined
  }

  /** How far the projectors another process runs have got; their listeners hear those that may have written. */
  private heard({ positions, written }: Report) {
    for (const s of this.states.all()) {
      const at = typeof positions === 'number' ? positions : positions.get(s.name)
      if (s.state !== 'following' || at === undefined || at <= s.position) continue
      s.position = at
      // Read from its checkpoint row: it may have written (a lost notice would have said).
      if (typeof positions !== 'number') this.states.moved(s.name)
    }
    for (const name of written) this.states.moved(name)
    this.states.moved()
  }

  async start() {
    await this.stopFollowing()
    this.stopping = false
    // Running from the checkpoints once start() answers, as /health reports.
    for (const p of this.projectors) {
      await installProjector(this.db, p)
      const position = await this.checkpoint(p.name)
      this.states.set(p.name, 'running', position)
      this.saved.set(p.name, position)
    }
    this.offAppend = this.store.onAppend(() => this.wakeAll())
    this.loop = this.run()
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

  private async run() {
    this.states.moved()
    while (!this.stopping) {
      const idle = this.waitForAppend(1000)
      this.states.resumeWaiting()
      const running = this.projectors.filter((p) => this.states.get(p.name).state === 'running')
      if (running.length === 0) {
        if (!this.projectors.some((p) => this.states.get(p.name).state === 'waiting')) break
        await idle
        continue
      }
      let events: RecordedEvent[] = []
      try {
        events = await this.store.readAll({
          after: Math.min(...running.map((p) => this.states.get(p.name).position)),
          maxCount: BATCH,
        })
      } catch (error) {
        this.log.error({ err: error }, 'projections could not read the log; retrying')
      }
      if (events.length > 0) await this.applySliced(events)
      // Also under constant writes: a process that follows by the rows sees idle projectors move on.
      if (Date.now() - this.idleSavedAt >= IDLE_CHECKPOINT_MS) await this.saveIdleCheckpoints(running)
      if (events.length < BATCH) await idle
    }
    await this.saveIdleCheckpoints(this.projectors.filter((p) => this.states.get(p.name).state === 'running'))
    for (const s of this.states.all()) if (s.state === 'running') s.state = 'stopped'
  }

  /** Time an event took to apply, lately (ms): it sizes the slices. */
  private msPerEvent = 1

  private async applySliced(events: RecordedEvent[]) {
    for (let i = 0; i < events.length && !this.stopping; ) {
      const running = this.projectors.filter((p) => this.states.get(p.name).state === 'running')
      if (running.length === 0) return
      const n = Math.min(events.length - i, Math.max(1, Math.floor(SLICE_MS / this.msPerEvent)))
      const started = performance.now()
      await this.applyAll(running, events.slice(i, i + n))
      this.msPerEvent = 0.5 * this.msPerEvent + 0.5 * ((performance.now() - started) / n)
      i += n
    }
  }

  private async applyAll(running: Projector[], events: RecordedEvent[]) {
    const last = events[events.length - 1].position
    const writers = running.filter((p) => {
      const after = this.states.get(p.name).position
      return events.some((e) => e.position > after && handles(p, e))
    })
    for (const p of running) {
      // Nothing to write: move on in memory; the checkpoint row catches up when idle.
      if (!writers.includes(p)) this.states.get(p.name).position = Math.max(this.states.get(p.name).position, last)
    }
    if (writers.length > 0) {
      try {
        const reached = await this.applyIn(writers, events)
        writers.forEach((p, i) => this.advance(p.name, reached[i]))
      } catch {
        // Find the projector that cannot apply this batch: each alone, in its own transaction.
        for (const p of writers) {
          try {
            const [reached] = await this.applyIn([p], events)
            this.advance(p.name, reached)
          } catch (error) {
            this.states.fail(p.name, error)
          }
        }
      }
    }
    this.states.moved()
    const reached = Math.min(...this.states.all().map((s) => s.position))
    await announce(
      this.db,
      reached,
      writers.map((p) => p.name),
      this.log,
    )
  }

  /**
   * Applies the batch to the projectors from their checkpoints and records the checkpoints; answers the positions
   * reached. On PGlite the transaction is cut where it pauses (between events, projectors and the parts of a long
   * event): at each cut the checkpoints move to the events applied whole, so that after a crash only the event in
   * progress is applied again, over what its parts left; and after it the batch goes on only if no one wrote the
   * checkpoints meanwhile (a rebuild that swapped its tables in). Else it throws, and the batch is applied again.
   */
  private applyIn(projectors: Projector[], events: RecordedEvent[]) {
    const names = projectors.map((p) => p.name)
    const seen = new Map<string, string>()
    /** Positions of the events applied whole since the last cut, by projector. */
    const whole = new Map<string, number>()
    const lock = async (tx: Client) => {
      const { rows } = await lockCheckpoints(tx, names)
      if (seen.size > 0 && rows.some((r) => seen.get(r.name) !== r.row))
        throw new Error("the projectors' checkpoints were written while their batch paused: it is applied again")
      for (const r of rows) seen.set(r.name, r.row)
      return new Map(rows.map((r) => [r.name, r.position]))
    }
    const cut = async (tx: Client) => {
      if (whole.size === 0) return
      const moved = [...whole]
      whole.clear()
      // An index outside the database gets what the projectors wrote, before their checkpoints pass it.
      for (const p of projectors) if (moved.some(([name]) => name === p.name)) await p.afterBatch?.(tx)
      const { rows } = await saveCheckpoints(
        tx,
        moved.map(([name]) => name),
        moved.map(([, position]) => position),
      )
      for (const r of rows) seen.set(r.name, r.row)
    }
    const sliceMs = this.db.kind === 'pglite' ? SLICE_MS : Number.POSITIVE_INFINITY
    return inSlicedTransaction(this.db.pool, { sliceMs, beforeCommit: cut, resume: lock }, async (tx, pause) => {
      const recorded = await lock(tx)
      const reached: number[] = []
      for (const p of projectors) {
        await pause()
        // A rebuild may have swapped in tables that are ahead of what we read.
        const after = Math.max(recorded.get(p.name) ?? 0, this.states.get(p.name).position)
        reached.push(await applyBatch(tx, p, events, after, pause, (position) => whole.set(p.name, position)))
      }
      await saveCheckpoints(tx, names, reached)
      return reached
    })
  }

  private advance(name: string, position: number) {
    this.states.advance(name, position)
    this.saved.set(name, this.states.get(name).position)
  }

  /** Records the positions reached through events the projectors do not handle. */
  private async saveIdleCheckpoints(running: Projector[]) {
    this.idleSavedAt = Date.now()
    for (const p of running) {
      const status = this.states.get(p.name)
      if ((this.saved.get(p.name) ?? 0) >= status.position) continue
      try {
        this.saved.set(p.name, await this.saveCheckpoint(p.name, status.position))
      } catch (error) {
        this.log.error({ projector: p.name, err: error }, 'checkpoint not saved; retrying')
      }
    }
  }

  /** Records a position reached through events the projector does not handle. */
  private async saveCheckpoint(name: string, position: number) {
    const { rows } = await this.db.pool.query<{ position: number }>(
      'UPDATE projection_checkpoints SET position = GREATEST(position, $2), updated_at = now() WHERE name = $1 ' +
        'RETURNING position',
      [name, position],
    )
    return rows[0]?.position ?? position
  }

  private async checkpoint(name: string) {
    const { rows } = await this.db.pool.query<{ position: number }>(
      'SELECT position FROM projection_checkpoints WHERE name = $1',
      [name],
    )
    return rows[0]?.position ?? 0
  }

  onWritten(name: string, listener: () => void) {
    return this.states.onWritten(name, listener)
  }

  statuses(): ProjectorStatus[] {
    return this.states.statuses()
  }

  /** Resolves true once every projector has reached `position`, false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    return this.states.waitFor(position, timeoutMs)
  }

  /** Runs every projector up to the current head, then stops: for one-shot operator commands. */
  async catchUp(timeoutMs = 600_000) {
    await this.start()
    const reached = await this.waitFor(await this.store.headPosition(), timeoutMs)
    await this.stop()
    if (!reached) throw new Error(`projections did not reach the head: ${JSON.stringify(this.statuses())}`)
  }

  async stop() {
    await this.stopFollowing()
    this.stopping = true
    this.offAppend?.()
    this.wakeAll()
    await this.loop
    this.loop = undefined
  }
}
