import * as t from 'io-ts'
import * as E from 'fp-ts/Either'

export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'VERSION_CONFLICT'
  | 'FORBIDDEN'
  | 'QUOTA_EXCEEDED'
  | 'WORKSPACE_ACCESS_DENIED'
  | 'SERVICE_UNAVAILABLE'

/** An expected failure of a command, mapped to the HTTP envelope in one table (api/errors.ts). */
export interface DomainError {
  code: ErrorCode
  message: string
  details?: string[]
  /** A refusal that still wrote (an entry put back at root): its answer waits for the read models to reach this. */
  writtenAt?: number
}

export const fail = (code: ErrorCode, message: string, details?: string[]): E.Either<DomainError, never> =>
  E.left(details ? { code, message, details } : { code, message })

/** The decider of an aggregate (emmett's shape): pure, no clock, no random, no I/O. */
export interface Decider<Command, Event, State> {
  initialState: () => State
  evolve: (state: State, event: Event) => State
  decide: (command: Command, state: State) => E.Either<DomainError, Event[]>
  /** Codec of the aggregate's events, used to check events read back from the store. */
  events: t.Type<Event, unknown, unknown>
}

/** How a search ranks: by words (BM25), by meaning (vectors), or both. */
export const SearchMode = t.keyof({ hybrid: null, vector: null, text: null })
export type SearchMode = t.TypeOf<typeof SearchMode>

export const Role = t.keyof({ owner: null, admin: null, editor: null, viewer: null })
export type Role = t.TypeOf<typeof Role>

export type Permission = 'read:knowledge' | 'write:knowledge' | 'read:tools' | 'write:tools'

export const permissionsOf = (role: Role): Permission[] =>
  role === 'viewer'
    ? ['read:knowledge', 'read:tools']
    : ['read:knowledge', 'write:knowledge', 'read:tools', 'write:tools']

/** Owners and admins manage the workspace (and read its audit trail). */
export const managesWorkspace = (role: Role) => role === 'owner' || role === 'admin'

export const assertNever = (x: never): never => {
  throw new Error(`unexpected value ${JSON.stringify(x)}`)
}

/** Who wrote a page version: a person, or an agent (its client is never taken from the request content). */
export const Author = t.union([
  t.type({ kind: t.literal('human'), userId: t.string, name: t.string }),
  // keyId: the API key the agent called with; what "its own writes" means when it undoes one (never shown).
  t.intersection([
    t.type({ kind: t.literal('agent'), client: t.string }),
    t.partial({ skill: t.string, keyId: t.string }),
  ]),
])
export type Author = t.TypeOf<typeof Author>
/** A person who verifies, approves or rejects. */
export const Person = t.type({ userId: t.string, name: t.string })
export type Person = t.TypeOf<typeof Person>

/**
 * The fields of a PATCH's `changes` that differ from `current`: only those are a change, and a PATCH that changes
 * nothing records nothing.
 */
export const differing = <T extends object>(changes: T, current: object): Partial<T> =>
  Object.fromEntries(
    Object.entries(changes).filter(([k, v]) => v !== undefined && v !== (current as Record<string, unknown>)[k]),
  ) as Partial<T>
