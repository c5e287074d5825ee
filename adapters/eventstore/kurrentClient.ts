import {
  type AllStreamResolvedEvent,
  ANY,
  AppendRecordSizeExceededError,
  type AppendStreamState,
  type KurrentDBClient,
  MaxAppendSizeExceededError,
  NO_STREAM,
  type Position,
  type ResolvedEvent,
  STREAM_EXISTS,
  type StreamMetadata,
  StreamNotFoundError,
  streamNameFilter,
  TransactionMaxSizeExceededError,
} from '@kurrent/kurrentdb-client'
import type { Logger } from '../logger'
import type { EventMetadata, ExpectedRevision, RecordedEvent } from './port'

// The EventStoreDB client's types mapped onto the port's, and what the adapter adds to its subscriptions.

/** $all is read with this server-side filter: every stream but the server's own (`$`-prefixed). */
export const OWN_STREAMS = streamNameFilter({ regex: '^[^$]' })

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

export const positionOf = (n: number): Position => ({ commit: BigInt(n), prepare: BigInt(n) })

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

export interface LogPage {
  /** The events the port can hold (JSON), after the position asked. */
  events: RecordedEvent[]
  /** The log ends within this page: fewer events were sent than asked, binary ones included. */
  end: boolean
  /** Where the next page starts: the position of the last event sent, kept or not. */
  next: number
}

/**
 * A page of `$all` after a position: `read(from, count)` is the client's read from a position, which
 * includes the event there, so one more is asked for and it is dropped. Paging goes by what the server
 * sent, not by what was kept: other applications' binary events (which the port cannot hold) count.
 */
export const logPage = async (
  read: (from: number, count: number) => AsyncIterable<AllStreamResolvedEvent>,
  after: number,
  maxCount: number,
): Promise<LogPage> => {
  const events: RecordedEvent[] = []
  let sent = 0
  let next = after
  for await (const resolved of read(after, after > 0 ? maxCount + 1 : maxCount)) {
    const position = resolved.event?.position ? positionNumber(resolved.event.position) : undefined
    if (position !== undefined && position <= after) continue
    sent++
    if (position !== undefined) next = position
    const e = toRecorded(resolved)
    if (e) events.push(e)
    if (sent === maxCount) break
  }
  return { events, end: sent < maxCount, next }
}

/** The first page after `after` that holds an event the port can hold, or the log's end (then none). */
export const readPastBinary = async (page: (from: number) => Promise<LogPage>, after: number) => {
  for (let from = after; ; ) {
    const p = await page(from)
    if (p.events.length > 0 || p.end || p.next <= from) return p.events
    from = p.next
  }
}

export const collect = async (events: AsyncIterable<ResolvedEvent | AllStreamResolvedEvent>) => {
  const out: RecordedEvent[] = []
  for await (const resolved of events) {
    const e = toRecorded(resolved)
    if (e) out.push(e)
  }
  return out
}

/**
 * Writes a stream's metadata only while its metadata stream is at `expected` (else the server answers
 * WrongExpectedVersionError). The client's setStreamMetadata documents `expectedRevision` but hands its
 * options to appendToStream, which reads `streamState`: given alone, the check never reached the server.
 */
export const setMetadataAt = (
  client: KurrentDBClient,
  streamId: string,
  metadata: StreamMetadata,
  expected: AppendStreamState,
) =>
  client.setStreamMetadata(streamId, metadata, { expectedRevision: expected, streamState: expected } as {
    expectedRevision: AppendStreamState
  })

/**
 * The limit, in bytes, of an append the server refused for its size: the whole append
 * (MaxAppendSizeExceededError), one event of it (AppendRecordSizeExceededError, KurrentDB 25's
 * per-record limit) or a multi-stream transaction (TransactionMaxSizeExceededError). Undefined for
 * any other error.
 */
export const sizeLimitOf = (error: unknown): number | undefined =>
  error instanceof MaxAppendSizeExceededError
    ? error.maxAppendSize
    : error instanceof AppendRecordSizeExceededError || error instanceof TransactionMaxSizeExceededError
      ? error.maxSize
      : undefined

export const missingAsEmpty = (error: unknown): RecordedEvent[] => {
  if (error instanceof StreamNotFoundError) return []
  throw error
}

const RETRY_MAX_MS = 30_000

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
