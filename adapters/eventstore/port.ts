import type { ChainHead, ChainReport } from './chain'

// The event store port, modelled on EventStoreDB's semantics so that an EventStoreDB adapter
// maps onto it one to one (appendToStream / readStream / readAll / subscribeToAll).

export type Actor =
  | { kind: 'human'; userId: string }
  // keyId: the API key it called with (absent on events written before keys were recorded).
  | { kind: 'agent'; client: string; skill?: string; keyId?: string }
  | { kind: 'system'; process: string }

/** Who an actor is, as one id: a user id, an agent's client name, or a process. */
export const actorId = (actor: Actor) =>
  actor.kind === 'human' ? actor.userId : actor.kind === 'agent' ? actor.client : actor.process

/**
 * An actor as every member of the workspace may see it: an agent by its client, its API key left out
 * (owners and admins see the key in the audit trail and the access report).
 */
export const shownActor = (actor: Actor): Actor => {
  if (actor.kind !== 'agent') return actor
  const { keyId: _key, ...shown } = actor
  return shown
}

/** Who did it, when, in answer to what; workspaceId scopes the event for audit. */
export interface EventMetadata {
  actor: Actor
  correlationId: string
  causationId: string | null
  at: string
  workspaceId?: string
}

export interface EventData {
  id: string
  type: string
  data: unknown
  metadata: EventMetadata
}

export interface RecordedEvent extends EventData {
  streamId: string
  /** 0-based revision of the event in its stream. */
  revision: number
  /** Global position in the log: increases in commit order, never reused. */
  position: number
  /** ISO time the store recorded the event. */
  time: string
}

/** 'no_stream': the stream must not exist; 'stream_exists': it must; a number: its current revision. */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | number

export interface AppendResult {
  /** Revision of the last appended event (the expected revision for the next append). */
  nextExpectedRevision: number
  /** Global position of the last appended event. */
  position: number
}

export class WrongExpectedVersion extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's actual revision, or 'no_stream'. */
    readonly actual: number | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`)
    this.name = 'WrongExpectedVersion'
  }
}

/** An append larger than the store takes at once (EventStoreDB's maximum append size). */
export class AppendTooLarge extends Error {
  constructor(
    readonly streamId: string,
    /** The store's limit in bytes. */
    readonly limit: number,
  ) {
    super(`this write is over the event store's limit of ${limit} bytes for one append; send less at once`)
    this.name = 'AppendTooLarge'
  }
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive), default 0. */
  fromRevision?: number
  maxCount?: number
}

export interface ReadAllOptions {
  /** Read events with a position strictly after this one; default: from the start. */
  after?: number
  maxCount?: number
}

export interface Subscription {
  unsubscribe(): Promise<void>
  /** Resolves when the subscription stops (unsubscribed, or failed with the handler's error). */
  readonly done: Promise<void>
}

export interface EventStore {
  append(streamId: string, events: EventData[], expected: ExpectedRevision): Promise<AppendResult>
  /** Events of a stream forwards; an empty array when the stream does not exist. */
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>
  /**
   * Removes a stream's events before `revision` (EventStoreDB's truncateBefore): content that
   * must not outlive a deletion. The stream's revision and later events stay.
   */
  truncateBefore(streamId: string, revision: number): Promise<void>
  /** The current revision of a stream, or 'no_stream'. */
  streamRevision(streamId: string): Promise<number | 'no_stream'>
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>
  /** Position of the last committed event, 0 when the log is empty. */
  headPosition(): Promise<number>
  /** Catch up from `after`, then live; the handler sees each event once, in position order. */
  subscribeToAll(options: { after?: number }, handler: (event: RecordedEvent) => Promise<void>): Subscription
  /**
   * Calls the listener when new events may have been appended (by this process or, where the
   * backend can tell, another one). Returns a function that removes the listener.
   */
  onAppend(listener: () => void): () => void
  /**
   * Where the store keeps a hash chain of each workspace's events (./chain.ts): its head (`''` for
   * the events of no workspace), and a walk of the chain that names the first broken event.
   */
  chainHead?(chain: string): Promise<ChainHead | undefined>
  verifyChain?(chain?: string): Promise<ChainReport>
  /**
   * The last event of a chain (a workspace) at or before a time or a position, counting the events
   * whose content a deletion cut, where the store keeps their links.
   */
  lastEventAt?(chain: string, at: { time: Date } | { position: number }): Promise<LogMoment | undefined>
  close(): Promise<void>
}

/** An event's place in the log and the time it was recorded (unknown for some events cut long ago). */
export interface LogMoment {
  position: number
  time: string | null
}

export const START = 0
