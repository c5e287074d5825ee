import { EventEmitter } from 'node:events'
import {
  AccessDeniedError,
  BACKWARDS,
  END,
  FORWARDS,
  type JSONType,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  START,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client'
import { type Database, inTransaction } from '../db'
import type { Logger } from '../logger'
import { chainHead, lastChainedAt } from './chain'
import {
  OWN_STREAMS,
  collect,
  logPage,
  missingAsEmpty,
  positionNumber,
  positionOf,
  readPastBinary,
  resubscribing,
  setMetadataAt,
  sizeLimitOf,
  streamState,
  toRecorded,
} from './kurrentClient'
import { masked, withoutCredentials } from '../connectionStrings'
import {
  LEDGER,
  type ReadLog,
  chainPending,
  ledgerSchema,
  recordAppending,
  recordTruncation,
  truncationsOf,
  uncut,
  verifyLedger,
} from './kurrentLedger'
import {
  AppendTooLarge,
  type AppendResult,
  type EventData,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  WrongExpectedVersion,
} from './port'

/** Tries of a `$tb` write that another writer's metadata raced. */
const METADATA_TRIES = 5

/**
 * The event store on EventStoreDB / KurrentDB (EVENTSTORE_URL, a `kurrentdb://` or `esdb://`
 * connection string). Streams map one to one; expected revisions are the server's. A truncation is
 * recorded in the service's database (./kurrentLedger.ts), which every read and subscription of
 * `$all` applies, and raises the stream's `$tb` (hidden from reads of the stream at once, removed
 * from the disk by the server's scavenge, which operators schedule). The hash chain of each
 * workspace's events is kept in the database beside it. Projections' checkpoints stay there too.
 */
export class KurrentEventStore implements EventStore {
  private readonly local = new EventEmitter()
  private readonly watch: ReturnType<typeof resubscribing>
  private readonly subscriptions = new Set<ReturnType<typeof resubscribing>>()
  private chaining: Promise<void> | undefined
  private chainAgain = false

  private constructor(
    private readonly client: KurrentDBClient,
    private readonly db: Database,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {
    this.local.setMaxListeners(0)
    // Other processes' appends: a live subscription from the end wakes this process's readers.
    this.watch = resubscribing(
      (after) => this.rawSubscription(after),
      undefined,
      async (resolved) => {
        this.local.emit('append')
        return resolved.event?.position ? positionNumber(resolved.event.position) : undefined
      },
      log,
    )
    this.watch.done.catch(() => undefined)
  }

  /**
   * Connects, checks that the server can be read as the service needs ($all, which needs the
   * `$admins` group or an ACL granting it), and prepares the register and the chain in the database.
   */
  static async open(url: string, db: Database, log?: Pick<Logger, 'warn'>): Promise<KurrentEventStore> {
    let client: KurrentDBClient | undefined
    try {
      client = KurrentDBClient.connectionString(url)
      await collect(client.readAll({ maxCount: 1, direction: BACKWARDS, fromPosition: END, filter: OWN_STREAMS }))
    } catch (error) {
      await client?.dispose().catch(() => undefined)
      const where = withoutCredentials(url)
      if (error instanceof AccessDeniedError)
        throw new Error(
          `the event store at ${where} refuses to let this user read $all: it needs to be in the $admins group ` +
            '(or an ACL granting $all reads)',
        )
      throw new Error(`cannot reach the event store at ${where}: ${masked((error as Error).message, url)}`)
    }
    // Several processes may start at once on one database; DDL runs one at a time.
    await inTransaction(db.pool, async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('kb-kurrent-ledger')::bigint)")
      await tx.query(ledgerSchema)
    })
    const store = new KurrentEventStore(client, db, log)
    await store.chain()
    return store
  }

  async append(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event')
    let result: Awaited<ReturnType<KurrentDBClient['appendToStream']>>
    // Recorded first: the chain tells these events from any written straight into the server.
    await recordAppending(
      this.db.pool,
      events.map((e) => e.id),
    )
    try {
      result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata })),
        { streamState: streamState(expected) },
      )
    } catch (error) {
      const limit = sizeLimitOf(error)
      if (limit !== undefined) throw new AppendTooLarge(streamId, limit)
      if (!(error instanceof WrongExpectedVersionError)) throw error
      const actual = error.actualState === NO_STREAM ? 'no_stream' : Number(error.actualState)
      throw new WrongExpectedVersion(streamId, expected, actual)
    }
    // A client set not to throw (throwOnAppendFailure=false) answers a conflict as success: false,
    // with no trustworthy revision: the stream is asked for its own.
    if (!result.success) throw new WrongExpectedVersion(streamId, expected, await this.streamRevision(streamId))
    if (!result.position) throw new Error(`append to ${streamId}: the server answered no position`)
    await this.chain()
    this.local.emit('append')
    return { nextExpectedRevision: Number(result.nextExpectedRevision), position: positionNumber(result.position) }
  }

  /** Chains what the log holds beyond the chain, once at a time (appends meanwhile ask for one more run). */
  private chain(): Promise<void> {
    if (this.chaining) {
      this.chainAgain = true
      return this.chaining
    }
    this.chaining = (async () => {
      do {
        this.chainAgain = false
        await chainPending(this.db, this.readLog).catch((error) =>
          this.log?.warn({ err: error }, 'the events could not be chained yet; the next append chains them'),
        )
      } while (this.chainAgain)
    })().finally(() => {
      this.chaining = undefined
    })
    return this.chaining
  }

  /** A page of the log after a position, cut or not (./kurrentClient.ts `logPage`). */
  private readPage(after: number, maxCount: number) {
    return logPage(
      (from, count) =>
        this.client.readAll({
          fromPosition: from > 0 ? positionOf(from) : START,
          maxCount: count,
          direction: FORWARDS,
          filter: OWN_STREAMS,
        }),
      after,
      maxCount,
    )
  }

  /** Every event of the log after a position, cut or not, up to `maxCount`: none only at its end. */
  private readonly readLog: ReadLog = (after, maxCount) =>
    readPastBinary((from) => this.readPage(from, maxCount), after)

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const events = await collect(
      this.client.readStream(streamId, {
        fromRevision: BigInt(options.fromRevision ?? 0),
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
        direction: FORWARDS,
      }),
    ).catch(missingAsEmpty)
    return uncut(this.db.pool, events)
  }

  /**
   * Records the cut, then raises the stream's `$tb` to it: written with the metadata stream's
   * revision as read, so a concurrent writer's metadata is never overwritten with an older cut,
   * and never lowered.
   */
  async truncateBefore(streamId: string, revision: number) {
    await recordTruncation(this.db.pool, streamId, revision)
    for (let attempt = 1; ; attempt++) {
      // The metadata stream's own revision (the client's getStreamMetadata answers a log position there).
      const [last] = await collect(
        this.client.readStream(`$$${streamId}`, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }),
      ).catch(missingAsEmpty)
      const { metadata } = await this.client.getStreamMetadata(streamId)
      if (metadata?.truncateBefore !== undefined && Number(metadata.truncateBefore) >= revision) return
      try {
        await setMetadataAt(
          this.client,
          streamId,
          { ...metadata, truncateBefore: revision },
          last ? BigInt(last.revision) : NO_STREAM,
        )
        return
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError) || attempt >= METADATA_TRIES) throw error
      }
    }
  }

  async streamRevision(streamId: string): Promise<number | 'no_stream'> {
    const [last] = await collect(
      this.client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }),
    ).catch(missingAsEmpty)
    return last ? last.revision : 'no_stream'
  }

  /** The log after a position, without what a cut hides (a cut stream's events stay in $all until a scavenge). */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER
    const out: RecordedEvent[] = []
    // Pages end by what the server sent, not by what was kept: a run of binary events is not the end.
    for (let after = options.after ?? 0; out.length < maxCount; ) {
      const page = await this.readPage(after, Math.min(maxCount - out.length, 1000))
      out.push(...(await uncut(this.db.pool, page.events)))
      if (page.end || page.next <= after) break
      after = page.next
    }
    return out.slice(0, maxCount)
  }

  async headPosition(): Promise<number> {
    const [last] = await collect(
      this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, filter: OWN_STREAMS }),
    )
    return last?.position ?? 0
  }

  private rawSubscription(after: number | undefined) {
    return this.client.subscribeToAll({
      fromPosition: after === undefined ? END : after > 0 ? positionOf(after) : START,
      filter: OWN_STREAMS,
    })
  }

  subscribeToAll(options: { after?: number }, handler: (event: RecordedEvent) => Promise<void>) {
    const after = options.after ?? 0
    let last = after
    const subscription = resubscribing(
      (from) => this.rawSubscription(from ?? after),
      after,
      async (resolved) => {
        const e = toRecorded(resolved)
        if (!e || e.position <= last) return undefined
        const cuts = await truncationsOf(this.db.pool, [e.streamId])
        if (e.revision >= (cuts.get(e.streamId) ?? 0)) await handler(e)
        last = e.position
        return e.position
      },
      this.log,
    )
    this.subscriptions.add(subscription)
    subscription.done.finally(() => this.subscriptions.delete(subscription)).catch(() => undefined)
    return subscription
  }

  /** Drops every subscription as a lost connection would (for the contract suite). */
  dropSubscriptions() {
    for (const s of [this.watch, ...this.subscriptions]) s.drop()
  }

  onAppend(listener: () => void) {
    this.local.on('append', listener)
    return () => void this.local.off('append', listener)
  }

  async chainHead(chain: string) {
    await this.chain()
    return chainHead(this.db.pool, chain)
  }

  async verifyChain(chain?: string) {
    await this.chain()
    return verifyLedger(this.db, this.readLog, chain)
  }

  async lastEventAt(chain: string, at: { time: Date } | { position: number }) {
    await this.chain()
    return lastChainedAt(this.db.pool, LEDGER, chain, at)
  }

  async close() {
    this.local.removeAllListeners()
    await Promise.all([this.watch, ...this.subscriptions].map((s) => s.unsubscribe()))
    await this.chaining
    await this.client.dispose()
  }
}
