import * as E from 'fp-ts/Either'
import type { Logger } from 'pino'

type Append = () => Promise<E.Either<{ message: string }, { position: number }>>

/**
 * How long a record waits for others to go with it: the appends and the projections' commits are
 * shared by the searches of this long (a crash loses at most about this much of them).
 */
const GATHER_MS = 250
/** Records kept while the log refuses them; beyond, the oldest are given up (and logged). */
const MAX_PENDING = 10_000
const RETRY_FIRST_MS = 100
const RETRY_MAX_MS = 5000

/**
 * What searches served (SearchServed, PageSearchServed: the citations, and the record behind an
 * answer's receipt) is appended after the answer, off its path, by group commit. A search never
 * waits for it: the receipt it hands out is a signed token the service checks without the record
 * (./receiptToken.ts). A record waits up to GATHER_MS for others, so that searches one
 * after another share an append and a projection commit; then every record waiting goes at once,
 * which the event store writes in one transaction and the projections apply in one each. Records
 * the log refuses (an outage) are kept, up to MAX_PENDING, and tried again with backoff until it
 * takes them; a crash loses those still waiting, normally the last quarter second's. Serves nobody
 * signed for (a public pack's) are tallied instead: one event per pack and mode for each period,
 * so a flood of anonymous calls cannot grow the log by one event per call; a crash loses the tally
 * of the period under way. A read that must show exact citation counts calls `settle` first;
 * shutdown settles too.
 */
export class CitationLog {
  private pending: Array<{ append: Append; recorded: (position: number) => void }> = []
  private draining?: Promise<void>
  /** The log position of the last record appended. */
  private last = 0
  private tallies = new Map<
    string,
    { counts: Map<string, number>; receipts: Map<string, unknown>; append: Tallied<unknown> }
  >()
  private tallyTimer?: NodeJS.Timeout
  /** Ends the wait of the records gathering now. */
  private hurry?: () => void

  /** `tallyMs`: how long anonymous serves are counted together before their one event is appended. */
  constructor(
    private readonly log: Pick<Logger, 'warn'>,
    private readonly tallyMs = 10_000,
  ) {}

  /**
   * Counts serves nobody signed for (a public pack's searches) under `group`: each item's count
   * grows, a distinct answer's receipt is kept once, and once per `tallyMs` each group's counts and
   * receipts become one event (`append`).
   */
  tally<R>(group: string, items: string[], append: Tallied<R>, receipt?: { id: string; value: R }) {
    let t = this.tallies.get(group)
    if (!t)
      this.tallies.set(group, (t = { counts: new Map(), receipts: new Map(), append: append as Tallied<unknown> }))
    for (const item of items) t.counts.set(item, (t.counts.get(item) ?? 0) + 1)
    if (receipt && !t.receipts.has(receipt.id)) t.receipts.set(receipt.id, receipt.value)
    this.tallyTimer ??= setTimeout(() => this.closeTallies(), this.tallyMs)
  }

  private closeTallies() {
    clearTimeout(this.tallyTimer)
    this.tallyTimer = undefined
    for (const t of this.tallies.values()) void this.record(t.append(t.counts, [...t.receipts]))
    this.tallies.clear()
  }

  /** Appends a search's record with the next batch; answers its log position once it is there (0: given up). */
  record(append: Append): Promise<number> {
    const recorded = new Promise<number>((resolve) => this.pending.push({ append, recorded: resolve }))
    this.giveUpOver(MAX_PENDING)
    this.draining ??= this.drain()
    return recorded
  }

  /** Gives up the oldest records beyond `most` waiting (the log refusing or slow for long), and says so. */
  private giveUpOver(most: number) {
    const over = this.pending.length - most
    if (over <= 0) return
    for (const item of this.pending.splice(0, over)) item.recorded(0)
    this.log.warn({ dropped: over }, 'search records given up: too many waiting for the log')
  }

  /**
   * Appends what is waiting and tallied, for at most `maxMs`; answers the position of the last
   * record appended (0 if none).
   */
  async settle(maxMs = Number.POSITIVE_INFINITY): Promise<{ position: number; complete: boolean }> {
    this.closeTallies()
    this.hurry?.()
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<void>((resolve) => {
      if (Number.isFinite(maxMs)) timer = setTimeout(resolve, maxMs)
    })
    await Promise.race([this.draining, late])
    clearTimeout(timer)
    return { position: this.last, complete: this.pending.length === 0 && this.draining === undefined }
  }

  /** Records still waiting (a stop logs those it leaves behind). */
  waiting() {
    return this.pending.length
  }

  /** Appends what waits, after GATHER_MS (cut short by `settle`), until nothing does. */
  private async drain() {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, GATHER_MS)
      this.hurry = () => (clearTimeout(timer), resolve())
    })
    this.hurry = undefined
    let backoff = RETRY_FIRST_MS
    let refused = false
    while (this.pending.length > 0) {
      const batch = this.pending
      this.pending = []
      const failed: typeof batch = []
      await Promise.all(
        batch.map(async (item) => {
          const done = await item.append().catch((error: Error) => E.left({ message: error.message, thrown: error }))
          if (E.isRight(done)) {
            this.last = Math.max(this.last, done.right.position)
            return item.recorded(done.right.position)
          }
          // A refusal the log will repeat (a decision, data it cannot take) is given up at once.
          if (!transient(done.left)) {
            this.log.warn({ reason: done.left.message }, 'a search record was refused; it is given up')
            return item.recorded(0)
          }
          failed.push(item)
        }),
      )
      if (failed.length === 0) {
        if (refused) this.log.warn('the log takes search records again')
        refused = false
        backoff = RETRY_FIRST_MS
        continue
      }
      if (!refused)
        this.log.warn({ waiting: failed.length }, 'the log refuses search records; they are kept and retried')
      refused = true
      this.pending = [...failed, ...this.pending]
      this.giveUpOver(MAX_PENDING)
      await new Promise((resolve) => setTimeout(resolve, backoff))
      backoff = Math.min(backoff * 2, RETRY_MAX_MS)
    }
    this.draining = undefined
  }
}

/**
 * Whether a failed append may succeed if tried again. A decision (a domain error) is final, unless
 * it says the service was unavailable. Of errors thrown, PostgreSQL's say by their class: the
 * server unreachable, restarting, out of resources or in a conflict (08, 40, 53, 57, 58) pass; data
 * it cannot take does not. Anything else thrown (a lost connection, another store) is tried again.
 */
const transient = (failure: { message: string; code?: string; thrown?: unknown }) => {
  if (!('thrown' in failure)) return failure.code === 'SERVICE_UNAVAILABLE'
  const error = failure.thrown as { code?: unknown; severity?: unknown }
  if (typeof error?.severity === 'string' && typeof error.code === 'string') return /^(08|40|53|57|58)/.test(error.code)
  return true
}

/** The append of a period's tally: each item's count, and each distinct receipt (id, value). */
export type Tallied<R> = (counts: Map<string, number>, receipts: Array<[string, R]>) => Append
