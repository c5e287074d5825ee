import { EventEmitter } from 'node:events'
import {
  type AllStreamResolvedEvent,
  ANY,
  type AppendStreamState,
  BACKWARDS,
  END,
  FORWARDS,
  type JSONType,
  jsonEvent,
  KurrentDBClient,
  NO_STREAM,
  type Position,
  type ResolvedEvent,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  streamNameFilter,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client'
import {
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

const toRecorded = (resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined => {
  const e = resolved.event
  if (!e?.isJson) return undefined
  return {
    id: e.id,
    type: e.type,
    data: e.data,
    metadata: e.metadata as unknown as EventMetadata,
    streamId: e.streamId,
    revision: Number(e.revision),
    // Reads of one stream may come without log positions (servers before 22.6); nothing reading a stream uses them.
    position: e.position ? positionNumber(e.position) : 0,
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

/**
 * The event store on EventStoreDB / KurrentDB (EVENTSTORE_URL, a `kurrentdb://` or `esdb://`
 * connection string). Streams map one to one; expected revisions are the server's; truncation is
 * the stream's `$tb` metadata (hidden at once, removed from disk by the server's scavenge).
 * Projections' checkpoints stay in Postgres, beside their read models.
 */
export class KurrentEventStore implements EventStore {
  private readonly local = new EventEmitter()
  private readonly watch: ReturnType<KurrentDBClient['subscribeToAll']>

  private constructor(private readonly client: KurrentDBClient) {
    this.local.setMaxListeners(0)
    // Other processes' appends: a live subscription from the end wakes this process's readers.
    this.watch = client.subscribeToAll({ fromPosition: END, filter: OWN_STREAMS })
    this.watch.on('data', () => this.local.emit('append'))
    this.watch.on('error', () => undefined)
  }

  static async open(url: string): Promise<KurrentEventStore> {
    const client = KurrentDBClient.connectionString(url)
    // Fails here, not on the first command, when the server cannot be reached.
    try {
      await collect(client.readAll({ maxCount: 1, direction: BACKWARDS, fromPosition: END, filter: OWN_STREAMS }))
    } catch (error) {
      await client.dispose().catch(() => undefined)
      const where = url.replace(/\/\/[^@/]*@/, '//')
      throw new Error(`cannot reach the event store at ${where}: ${(error as Error).message}`)
    }
    return new KurrentEventStore(client)
  }

  async append(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event')
    try {
      const result = await this.client.appendToStream(
        streamId,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata })),
        { streamState: streamState(expected) },
      )
      if (!result.position) throw new Error(`append to ${streamId}: the server answered no position`)
      this.local.emit('append')
      return { nextExpectedRevision: Number(result.nextExpectedRevision), position: positionNumber(result.position) }
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError)) throw error
      const actual = error.actualState === NO_STREAM ? 'no_stream' : Number(error.actualState)
      throw new WrongExpectedVersion(streamId, expected, actual)
    }
  }

  readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    return collect(
      this.client.readStream(streamId, {
        fromRevision: BigInt(options.fromRevision ?? 0),
        maxCount: options.maxCount ?? Number.MAX_SAFE_INTEGER,
        direction: FORWARDS,
      }),
    ).catch(missingAsEmpty)
  }

  async truncateBefore(streamId: string, revision: number) {
    const { metadata } = await this.client.getStreamMetadata(streamId)
    await this.client.setStreamMetadata(streamId, { ...metadata, truncateBefore: revision })
  }

  async streamRevision(streamId: string): Promise<number | 'no_stream'> {
    const [last] = await collect(
      this.client.readStream(streamId, { fromRevision: END, direction: BACKWARDS, maxCount: 1 }),
    ).catch(missingAsEmpty)
    return last ? last.revision : 'no_stream'
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const after = options.after ?? 0
    const maxCount = options.maxCount ?? Number.MAX_SAFE_INTEGER
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

  async headPosition(): Promise<number> {
    const [last] = await collect(
      this.client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1, filter: OWN_STREAMS }),
    )
    return last?.position ?? 0
  }

  subscribeToAll(options: { after?: number }, handler: (event: RecordedEvent) => Promise<void>) {
    const after = options.after ?? 0
    const subscription = this.client.subscribeToAll({
      fromPosition: after > 0 ? positionOf(after) : START,
      filter: OWN_STREAMS,
    })
    const done = (async () => {
      for await (const resolved of subscription) {
        const e = toRecorded(resolved)
        if (e && e.position > after) await handler(e)
      }
    })()
    return {
      done,
      unsubscribe: async () => {
        await subscription.unsubscribe()
        await done.catch(() => undefined)
      },
    }
  }

  onAppend(listener: () => void) {
    this.local.on('append', listener)
    return () => void this.local.off('append', listener)
  }

  async close() {
    this.local.removeAllListeners()
    await this.watch.unsubscribe().catch(() => undefined)
    await this.client.dispose()
  }
}
