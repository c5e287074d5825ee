import { EventEmitter } from 'node:events'
import {
  AccessDeniedError,
  type AllStreamResolvedEvent,
  ANY,
  type AppendStreamState,
  BACKWARDS,
  END,
  FORWARDS,
  type JSONType,
  jsonEvent,
  KurrentDBClient,
  MaxAppendSizeExceededError,
  NO_STREAM,
  type Position,
  type ResolvedEvent,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client'
import type { Database } from '../db'
import type { Logger } from '../logger'
import { lastChainedAt, chainHead } from './chain'
import {
  type ReadLog,
  chainPending,
  ledgerSchema,
  recordTruncation,
  truncationsOf,
  uncut,
  verifyLedger,
} from './kurrentLedger'
import {
  AppendTooLarge,
  type AppendResult,
  type EventData,
  type EventMetadata,
  type EventStore,
  type ExpectedRevision,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  WrongExpectedVersion,
} from './port'

/** $all is read with this server-side filter: every stream but the server's own (`$`-prefixed). */
const OWN_STREAMS = streamNameFilter({ regex: '^[^$]' })

/**
 * The port's positions are numbers; EventStoreDB's are `{commit, prepare}` byte offsets in its log.
 * An event appended without an explicit transaction (the only way this adapter appends) has one
 * position for both, so the number is that offset (exact below 2^53 bytes of log). An event whose
 * two differ could not be resumed from by number, so it is refused loudly rather than skipped.
 */
export const positionNumber = (p: Position): number => {
  if (p.commit !== p.prepare)
    throw new Error(`event store position ${p.commit}/${p.prepare}: commit and prepare differ (explicit transaction)`)
  if (p.commit > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`event store position ${p.commit} exceeds 2^53`)
  return Number(p.commit)
}

const positionOf = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) })

export const streamState = (expected: ExpectedRevision): AppendStreamState =>
  expected === 'any'
    ? ANY
    : expected === 'no_stream'
      ? NO_STREAM
      : expected === 'stream_exists'
        ? STREAM_EXISTS
        : BigInt(expected)

/** What servers before 22.6 put where a stream read's event has no log position. */
const NO_POSITION = 2n ** 64n - 1n

export const toRecorded = (resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined => {
  const e = resolved.event
  if (!e?.isJson) return undefined
  return {
    id: e.id,
    type: e.type,
    data: e.data,
    metadata: e.metadata as unknown as EventMetadata,
    streamId: e.streamId,
    revision: Number(e.revision),
    // Reads of one stream may come without log positions (none, or 2^64 - 1 from servers before 22.6);
    // nothing reading a stream uses them. Reads of $all always carry them.
    position: e.position && e.position.commit !== NO_POSITION ? positionNumber(e.position) : 0,
    time: e.created.toISOString(),
  }
}

const collect = async (events: AsyncIterable<ResolvedEvent | AllStreamResolvedEvent>) => {
  const out: RecordedEvent[] = []
  for await (const resolved of events) {
    const e = toRecorded(resolved)
    if (e) out.push(e)
  }
  return out
}

const missingAsEmpty = (error: unknown): RecordedEvent[] => {
  if (error instanceof StreamNotFoundError) return []
  throw error
}

/** A connection string with its user and password (everything before the host's `@`) left out. */
export const withoutCredentials = (url: string) => url.replace(/^([a-z+]+:\/\/)[^?]*@/i, '$1')

/** A message that may quote the connection string, with the credentials taken out. */
const masked = (message: string, url: string) => {
  const credentials = /^[a-z+]+:\/\/([^?]*)@/i.exec(url)?.[1]
  return credentials ? message.split(credentials).join('***') : message
}

const RETRY_MAX_MS = 30_000
/** Tries of a `$tb` write that another writer's metadata raced. */
const METADATA_TRIES = 5

/**
 * Follows a subscription, opened again from the last event delivered whenever it drops (a lost
 * connection, a server restart), after a wait that doubles up to 30 s; the handler's own error ends
 * it. `open(after)` subscribes from a log position (0: the start; undefined: the end).
 */
export const resubscribing = (
  open: (after: number | undefined) => AsyncIterable<AllStreamResolvedEvent> & { unsubscribe(): Promise<void> },
  after: number | undefined,
  handler: (resolved: AllStreamResolvedEvent) => Promise<number | undefined>,
  log?: Pick<Logger, 'warn'>,
) => {
  let stopped = false
  let current: ReturnType<typeof open> | undefined
  let wake = () => undefined as void
  let last = after
  const done = (async () => {
    for (let backoff = 0; !stopped; ) {
      current = open(last)
      let failure: unknown
      try {
        for await (const resolved of current) {
          backoff = 0
          const position = await handler(resolved).catch((error) => {
            stopped = true
            throw { handler: error }
          })
          if (position !== undefined) last = position
        }
      } catch (error) {
        if ((error as { handler?: unknown })?.handler !== undefined) throw (error as { handler: unknown }).handler
        failure = error
      }
      if (stopped) return
      backoff = Math.min(RETRY_MAX_MS, Math.max(500, backoff * 2))
      log?.warn(
        { err: failure, after: last ?? 'end', retryMs: backoff },
        'the event store subscription dropped; subscribing again',
      )
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff)
        wake = () => (clearTimeout(timer), resolve())
      })
    }
  })()
  return {
    done,
    unsubscribe: async () => {
      stopped = true
      wake()
      await current?.unsubscribe().catch(() => undefined)
      await done.catch(() => undefined)
    },
    /** Ends the current subscription as a dropped connection would (tests). */
    drop: () => (current as unknown as { destroy?: (e: Error) => void })?.destroy?.(new Error('connection dropped')),
  }
}

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
    await db.pool.query(ledgerSchema)
    const store = new KurrentEventStore(client, db, log)
    await store.chain()
    return store
  }

  async append(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event')
    let result: Awaited<ReturnType<KurrentDBClient['appendToStream']>>
    try {
      result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata })),
        { streamState: streamState(expected) },
      )
    } catch (error) {
      if (error instanceof MaxAppendSizeExceededError) throw new AppendTooLarge(streamId, error.maxAppendSize)
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

  /** Every event of the log after a position, cut or not. */
  private readonly readLog: ReadLog = async (after, maxCount) => {
    // A read from a position includes the event there: one more is read, and it is dropped.
    const events = await collect(
      this.client.readAll({
        fromPosition: after > 0 ? positionOf(after) : START,
        maxCount: after > 0 ? maxCount + 1 : maxCount,
        direction: FORWARDS,
        filter: OWN_STREAMS,
      }),
    )
    return events.filter((e) => e.position > after).slice(0, maxCount)
  }

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
        await this.client.setStreamMetadata(
          streamId,
          { ...metadata, truncateBefore: revision },
          { expectedRevision: last ? BigInt(last.revision) : NO_STREAM },
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
    for (let after = options.after ?? 0; out.length < maxCount; ) {
      const want = Math.min(maxCount - out.length, 1000)
      const events = await this.readLog(after, want)
      out.push(...(await uncut(this.db.pool, events)))
      if (events.length < want) break
      after = events[events.length - 1].position
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
    return lastChainedAt(this.db.pool, chain, at)
  }

  async close() {
    this.local.removeAllListeners()
    await Promise.all([this.watch, ...this.subscriptions].map((s) => s.unsubscribe()))
    await this.chaining
    await this.client.dispose()
  }
}
