import * as E from 'fp-ts/Either'
import type { Logger } from 'pino'

/** How long a search's record waits for others to be appended with it. */
const FLUSH_MS = 100
const MAX_PENDING = 200

type Append = () => Promise<E.Either<{ message: string }, { position: number }>>

/**
 * Searches are recorded off the answer's path. Each search's event (SearchServed,
 * PageSearchServed: the citations it served) waits here up to FLUSH_MS, then every waiting event
 * is appended at once, which the event store coalesces into one batch, and the projections apply
 * them in one transaction each instead of one per search. A read that shows citation counts
 * calls `settle` first, so a client still sees its own searches counted (and the anonymous serves
 * tallied so far); shutdown settles too.
 * A crash loses at most the last FLUSH_MS of citations, and with them those searches' receipts: a
 * receipt answered in that window is then not found (404).
 */
export class CitationLog {
  private pending: Append[] = []
  private timer?: NodeJS.Timeout
  private flushing: Promise<number> = Promise.resolve(0)
  private tallies = new Map<string, { counts: Map<string, number>; append: (counts: Map<string, number>) => Append }>()
  private tallyTimer?: NodeJS.Timeout

  /** `tallyMs`: how long anonymous serves are counted together before their one event is appended. */
  constructor(
    private readonly log: Pick<Logger, 'warn'>,
    private readonly tallyMs = 10_000,
  ) {}

  /**
   * Counts serves nobody signed for (a public pack's searches) under `group`: each item's count
   * grows, and once per `tallyMs` each group's counts become one event (`append`), so a flood of
   * anonymous calls adds one event per period, not one per call.
   */
  tally(group: string, items: string[], append: (counts: Map<string, number>) => Append) {
    if (items.length === 0) return
    let t = this.tallies.get(group)
    if (!t) this.tallies.set(group, (t = { counts: new Map(), append }))
    for (const item of items) t.counts.set(item, (t.counts.get(item) ?? 0) + 1)
    this.tallyTimer ??= setTimeout(() => this.closeTallies(), this.tallyMs)
  }

  private closeTallies() {
    clearTimeout(this.tallyTimer)
    this.tallyTimer = undefined
    for (const t of this.tallies.values()) this.record(t.append(t.counts))
    this.tallies.clear()
  }

  /** Queues a search's append; answers at once. */
  record(append: Append) {
    this.pending.push(append)
    if (this.pending.length >= MAX_PENDING) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS)
  }

  /** Appends what is waiting; answers the position of the last citation appended (0 if none). */
  settle(): Promise<number> {
    this.closeTallies()
    return this.pending.length ? this.flush() : this.flushing
  }

  private flush(): Promise<number> {
    clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.pending
    this.pending = []
    const previous = this.flushing
    this.flushing = (async () => {
      const positions = await Promise.all(
        batch.map(async (append) => {
          const done = await append().catch((error: Error) => E.left(error))
          if (E.isRight(done)) return done.right.position
          this.log.warn({ reason: done.left.message }, 'a search could not be recorded; its citations are not counted')
          return 0
        }),
      )
      return Math.max(await previous, ...positions)
    })()
    return this.flushing
  }
}
