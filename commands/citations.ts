import * as E from 'fp-ts/Either'
import type { Logger } from 'pino'

type Append = () => Promise<E.Either<{ message: string }, { position: number }>>

/**
 * What searches served (SearchServed, PageSearchServed: the citations, and the answer receipt) is
 * appended by group commit: a record waits only while the batch before it is being appended, then
 * every record waiting goes at once, which the event store writes in one transaction and the
 * projections apply in one each. A signed-for search answers once its record is in the log, so a
 * receipt it hands out is never lost to a crash. Serves nobody signed for (a public pack's) are
 * tallied instead: one event per pack and mode for each period, so a flood of anonymous calls
 * cannot grow the log by one event per call; a crash loses the tally of the period under way. A
 * read that shows citation counts calls `settle` first, so a client sees the serves tallied so
 * far; shutdown settles too.
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

  /** Appends a search's record with the next batch; answers its log position once it is there (0: it failed). */
  record(append: Append): Promise<number> {
    const recorded = new Promise<number>((resolve) => this.pending.push({ append, recorded: resolve }))
    this.draining ??= this.drain()
    return recorded
  }

  /** Appends what is waiting and tallied; answers the position of the last record appended (0 if none). */
  async settle(): Promise<number> {
    this.closeTallies()
    await this.draining
    return this.last
  }

  private async drain() {
    while (this.pending.length > 0) {
      const batch = this.pending
      this.pending = []
      await Promise.all(
        batch.map(async ({ append, recorded }) => {
          const done = await append().catch((error: Error) => E.left(error))
          if (E.isRight(done)) this.last = Math.max(this.last, done.right.position)
          else this.log.warn({ reason: done.left.message }, 'a search could not be recorded')
          recorded(E.isRight(done) ? done.right.position : 0)
        }),
      )
    }
    this.draining = undefined
  }
}

/** The append of a period's tally: each item's count, and each distinct receipt (id, value). */
export type Tallied<R> = (counts: Map<string, number>, receipts: Array<[string, R]>) => Append
