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
 * calls `settle` first, so a client still sees its own searches counted; shutdown settles too.
 * A crash loses at most the last FLUSH_MS of citations; the searches themselves were answered
 * and nothing else depends on these events.
 */
export class CitationLog {
  private pending: Append[] = []
  private timer?: NodeJS.Timeout
  private flushing: Promise<number> = Promise.resolve(0)

  constructor(private readonly log: Pick<Logger, 'warn'>) {}

  /** Queues a search's append; answers at once. */
  record(append: Append) {
    this.pending.push(append)
    if (this.pending.length >= MAX_PENDING) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS)
  }

  /** Appends what is waiting; answers the position of the last citation appended (0 if none). */
  settle(): Promise<number> {
    return this.pending.length ? this.flush() : this.flushing
  }

  private flush(): Promise<number> {
    clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.pending
    this.pending = []
    const previous = this.flushing
    this.flushing = (async () => {
      const positions = await Promise.all(batch.map(async (append) => {
        const done = await append().catch((error: Error) => E.left(error))
        if (E.isRight(done)) return done.right.position
        this.log.warn({ reason: done.left.message }, 'a search could not be recorded; its citations are not counted')
        return 0
      }))
      return Math.max(await previous, ...positions)
    })()
    return this.flushing
  }
}
