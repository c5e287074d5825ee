import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { PathReporter } from 'io-ts/PathReporter'
import type { Actor, EventMetadata, EventStore } from '../adapters/eventstore/port'
import { WrongExpectedVersion } from '../adapters/eventstore/port'
import type { Decider, DomainError } from '../domain/shared'
import type { Category } from './streams'

/** Who asks, when, and for which workspace; becomes the metadata of every appended event. */
export interface CommandContext {
  actor: Actor
  at: string
  correlationId: string
  causationId?: string | null
  workspaceId?: string
}

export interface Handled<Event> {
  events: Event[]
  /** Global position of the last appended event; 0 when the command was already satisfied. */
  position: number
  /** Stream revision after the command, or 'no_stream'. */
  revision: number | 'no_stream'
}

export const metadataOf = (ctx: CommandContext): EventMetadata => ({
  actor: ctx.actor,
  correlationId: ctx.correlationId,
  causationId: ctx.causationId ?? null,
  at: ctx.at,
  ...(ctx.workspaceId ? { workspaceId: ctx.workspaceId } : {}),
})

// Folded states by stream, per store and aggregate, so a load reads only the events appended
// since (a page with hundreds of versions is not re-read whole on every write). Events never
// change once written, so a cached fold stays true; the least recently used streams leave first.
// A fold may hold an entry's content: each is weighed by the JSON of the events folded into it,
// and a cache keeps at most CACHED_BYTES of them.
const CACHED_STREAMS = 2000
const CACHED_BYTES = 64 * 1024 * 1024
interface Fold {
  state: unknown
  revision: number
  bytes: number
}
interface Cache {
  folds: Map<string, Fold>
  bytes: number
}
const caches = new WeakMap<EventStore, WeakMap<object, Cache>>()

const cacheOf = (store: EventStore, decider: object) => {
  let byDecider = caches.get(store)
  if (!byDecider) caches.set(store, (byDecider = new WeakMap()))
  let cache = byDecider.get(decider)
  if (!cache) byDecider.set(decider, (cache = { folds: new Map(), bytes: 0 }))
  return cache
}

const forget = (cache: Cache, streamId: string) => {
  const old = cache.folds.get(streamId)
  if (!old) return
  cache.folds.delete(streamId)
  cache.bytes -= old.bytes
}

const remember = (cache: Cache, streamId: string, fold: Fold | undefined) => {
  forget(cache, streamId)
  if (!fold) return
  cache.folds.set(streamId, fold)
  cache.bytes += fold.bytes
  while (cache.folds.size > CACHED_STREAMS || (cache.bytes > CACHED_BYTES && cache.folds.size > 1))
    forget(cache, cache.folds.keys().next().value!)
}

const weight = (events: { data: unknown }[]) => events.reduce((n, e) => n + JSON.stringify(e.data ?? null).length, 0)

/** Folds events (as stored: JSON) into a state, checking each against the aggregate's codec. */
const fold = <C, Ev, S>(
  decider: Decider<C, Ev, S>,
  streamId: string,
  state: S,
  events: { type: string; data: unknown; revision: number }[],
) => {
  for (const r of events) {
    const decoded = decider.events.decode({ type: r.type, data: r.data })
    if (E.isLeft(decoded)) throw new Error(`${streamId}@${r.revision}: ${PathReporter.report(decoded).join('; ')}`)
    state = decider.evolve(state, decoded.right)
  }
  return state
}

/** Loads a stream and folds it, checking each event against the aggregate's codec. */
export const load = async <C, Ev, S>(store: EventStore, streamId: string, decider: Decider<C, Ev, S>) => {
  const cache = cacheOf(store, decider)
  const cached = cache.folds.get(streamId)
  const recorded = await store.readStream(streamId, cached ? { fromRevision: cached.revision + 1 } : {})
  const state = fold(decider, streamId, (cached?.state as S | undefined) ?? decider.initialState(), recorded)
  const revision: number | 'no_stream' = recorded.length
    ? recorded[recorded.length - 1].revision
    : cached
      ? cached.revision
      : 'no_stream'
  remember(
    cache,
    streamId,
    revision === 'no_stream' ? undefined : { state, revision, bytes: (cached?.bytes ?? 0) + weight(recorded) },
  )
  return { state, revision }
}

// Concurrent writers of one stream (agents appending to one page) each re-read and decide again.
const RETRIES = 20

/** A handled command's answer: `data` with the position of what it appended (read-your-writes waits for it). */
export const answered =
  <T extends object>(data: T) =>
  <L>(done: E.Either<L, { position: number }>): E.Either<L, T & { position: number }> =>
    E.map((h: { position: number }) => ({ ...data, position: h.position }))(done)

/**
 * The one command handler: read the stream, fold, decide, append with the revision read.
 * With `expectedRevision` (a client's guard) a stale revision answers VERSION_CONFLICT; without
 * it a concurrent writer makes the handler re-read and decide again. A command that depends on
 * the state (a page's new content and its size of change) is given as a function of the state.
 * With `fresh` (a stream id the caller has just generated) the first attempt skips the read: the
 * stream starts empty, and should it not be, the append's revision check sends it to a re-read.
 * Likewise a stream this process has folded is decided on that fold without a read (a task's
 * steps, one after another): a stale fold fails the revision check and is re-read, and a refusal
 * or a no-op decided on it is decided again on a fresh read before it is answered. A client's
 * `expectedRevision` is always checked against a fresh read.
 */
export const handle = async <C, Ev extends { type: string; data: unknown }, S>(
  store: EventStore,
  streamId: string,
  decider: Decider<C, Ev, S>,
  command: C | ((state: S) => E.Either<DomainError, C>),
  ctx: CommandContext,
  options: HandleOptions = {},
): Promise<E.Either<DomainError, Handled<Ev>>> => {
  const cache = cacheOf(store, decider)
  for (let attempt = 0; ; attempt++) {
    const cached =
      attempt === 0 && options.expectedRevision === undefined
        ? (cache.folds.get(streamId) as (Fold & { state: S }) | undefined)
        : undefined
    const unread = attempt === 0 && (options.fresh || cached !== undefined)
    const { state, revision } =
      options.fresh && attempt === 0
        ? { state: decider.initialState(), revision: 'no_stream' as const }
        : (cached ?? (await load(store, streamId, decider)))
    if (options.expectedRevision !== undefined && options.expectedRevision !== revision) {
      return E.left(versionConflict(streamId, revision))
    }
    const built =
      typeof command === 'function' ? (command as (state: S) => E.Either<DomainError, C>)(state) : E.right(command)
    const decided = E.isLeft(built) ? built : decider.decide(built.right, state)
    if (E.isLeft(decided) || decided.right.length === 0) {
      if (unread && !options.fresh) continue
      return E.isLeft(decided) ? decided : E.right({ events: decided.right, position: 0, revision })
    }
    const events = decided.right
    const metadata = metadataOf(ctx)
    try {
      const result = await store.append(
        streamId,
        events.map((e) => ({ id: randomUUID(), type: e.type, data: e.data, metadata })),
        revision,
      )
      // The fold goes on from what was appended, as a read would give it back (JSON).
      const first = revision === 'no_stream' ? 0 : revision + 1
      const json = events.map((e) => JSON.stringify(e.data ?? null))
      const stored = events.map((e, i) => ({ type: e.type, data: JSON.parse(json[i]) as unknown, revision: first + i }))
      const bytes = (cache.folds.get(streamId)?.bytes ?? 0) + json.reduce((n, j) => n + j.length, 0)
      remember(cache, streamId, {
        state: fold(decider, streamId, state, stored),
        revision: result.nextExpectedRevision,
        bytes,
      })
      return E.right({ events, position: result.position, revision: result.nextExpectedRevision })
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error
      if (options.expectedRevision !== undefined) return E.left(versionConflict(streamId, error.actual))
      if (attempt >= RETRIES) throw error
    }
  }
}

/** How a command is handled beyond its decider's rules: a client's revision guard, or a stream just named. */
export interface HandleOptions {
  expectedRevision?: number | 'no_stream'
  fresh?: boolean
}

/**
 * An aggregate: its decider bound once to its streams' category. A command names the aggregate and
 * the key of its stream, then handles a command or loads the state on a store:
 * `pages.on(store, pageId).handle(command, ctx)`.
 */
export const aggregate = <C, Ev extends { type: string; data: unknown }, S, K extends string[]>(
  decider: Decider<C, Ev, S>,
  { category, stream }: Category<K>,
) => ({
  decider,
  category,
  stream,
  on: (store: EventStore, ...key: K) => {
    const streamId = stream(...key)
    return {
      handle: (command: C | ((state: S) => E.Either<DomainError, C>), ctx: CommandContext, options?: HandleOptions) =>
        handle(store, streamId, decider, command, ctx, options),
      load: () => load(store, streamId, decider),
    }
  },
})

export const versionConflict = (streamId: string, actual: number | 'no_stream'): DomainError => ({
  code: 'VERSION_CONFLICT',
  message: `${streamId} is at revision ${String(actual)}`,
  details: [`currentRevision: ${String(actual)}`],
})
