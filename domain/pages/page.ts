import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { Author, type Decider, Person, fail, assertNever } from '../shared'

export { Author, Person }

export const WriteMode = t.keyof({ create: null, append: null, replace: null, revert: null })
export type WriteMode = t.TypeOf<typeof WriteMode>

export const PageCreated = t.type({
  type: t.literal('PageCreated'),
  data: t.intersection([
    t.type({ pageId: t.string, workspaceId: t.string, title: t.string }),
    t.partial({ collectionId: t.string }),
  ]),
})
export type PageCreated = t.TypeOf<typeof PageCreated>
/** A version: the page's whole content as of it, with the size of the change (+added -removed lines). */
export const PageVersionWritten = t.type({
  type: t.literal('PageVersionWritten'),
  data: t.intersection([
    t.type({
      pageId: t.string,
      version: t.number,
      mode: WriteMode,
      content: t.string,
      author: Author,
      added: t.number,
      removed: t.number,
    }),
    t.partial({ revertedFrom: t.number, proposalId: t.string, approvedBy: Person }),
  ]),
})
export type PageVersionWritten = t.TypeOf<typeof PageVersionWritten>
export const PageCollectionChanged = t.type({
  type: t.literal('PageCollectionChanged'),
  data: t.type({ pageId: t.string, collectionId: t.union([t.string, t.null]) }),
})
export type PageCollectionChanged = t.TypeOf<typeof PageCollectionChanged>
/** A person pins a version as verified. */
export const PageVerified = t.type({
  type: t.literal('PageVerified'),
  data: t.type({ pageId: t.string, version: t.number, by: Person }),
})
export type PageVerified = t.TypeOf<typeof PageVerified>
export const PageDeleted = t.type({ type: t.literal('PageDeleted'), data: t.type({ pageId: t.string }) })
export type PageDeleted = t.TypeOf<typeof PageDeleted>

export const PageEvent = t.union([PageCreated, PageVersionWritten, PageCollectionChanged, PageVerified, PageDeleted])
export type PageEvent = t.TypeOf<typeof PageEvent>

/** A write's new content and its size of change, worked out by the handler from the state it read. */
export interface Write {
  content: string
  author: Author
  added: number
  removed: number
  proposalId?: string
  approvedBy?: Person
}

/** Commands on an existing page name the workspace they act in: another workspace's page is not found. */
export type PageCommand =
  | { type: 'CreatePage'; data: PageCreated['data'] & Write }
  | {
      type: 'WritePage'
      workspaceId: string
      data: Write & { pageId: string; mode: 'append' | 'replace'; expectedVersion?: number }
    }
  | {
      type: 'RevertPage'
      workspaceId: string
      data: Write & { pageId: string; toVersion: number; expectedVersion?: number }
      /** An agent undoing its own writes: every version after toVersion must be written with this API key. */
      ownWritesOf?: string
    }
  | { type: 'ChangeCollection'; workspaceId: string; data: PageCollectionChanged['data'] }
  | { type: 'VerifyPage'; workspaceId: string; data: { pageId: string; by: Person } }
  | {
      type: 'DeletePage'
      workspaceId: string
      data: { pageId: string }
      /** An agent taking back a page it made: every version must be written with this API key. */
      ownWritesOf?: string
    }

export type PageState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted'
      workspaceId: string
      title: string
      collectionId: string | null
      version: number
      /** The latest version's content. */
      content: string
      /** Events folded so far, and the stream revision of each version's event (a revert reads its content there). */
      events: number
      versionAt: number[]
      /** The API key each version was written with (null: a person, a process, or an approved proposal). */
      agentOf: (string | null)[]
      verifiedVersion: number | null
      /**
       * The verified version's content: a later version with the same content carries the pin (reverting to
       * what a person verified is not a change since it). Null when unknown (a pin on a version not latest).
       */
      verifiedContent: string | null
      /** Proposals already published, with the version each became (an approval retried is satisfied). */
      published: Record<string, number>
    }

export const versionConflict = (current: number, expected: number) =>
  fail(
    'VERSION_CONFLICT',
    `the page is at version ${current}, not ${expected}: read it again and re-apply your change`,
    [`currentVersion: ${current}`],
  )

const versionOf = (
  state: Extract<PageState, { version: number }>,
  pageId: string,
  mode: PageVersionWritten['data']['mode'],
  w: Write,
  extra: object = {},
): PageEvent[] => [{ type: 'PageVersionWritten', data: { pageId, version: state.version + 1, mode, ...w, ...extra } }]

/**
 * A version whose content is the verified version's carries the pin: the page reads verified again, with
 * nothing changed since (the pages read model and the page index apply the same rule).
 */
export const carriesPin = (state: Extract<PageState, { version: number }>, content: string) =>
  state.verifiedVersion !== null && state.verifiedContent === content

/** The API key a version counts as written with: an agent's, unless a person approved it in review. */
const writingAgent = (d: PageVersionWritten['data']) =>
  d.author.kind === 'agent' && !d.approvedBy && d.author.keyId ? d.author.keyId : null

/** Refuses an agent's undo that would take back a version written otherwise than with its key (after `after`). */
const onlyOwnWrites = (state: Extract<PageState, { version: number }>, after: number, keyId: string | undefined) => {
  if (keyId === undefined) return undefined
  const other = state.agentOf.findIndex((agent, i) => i >= after && agent !== keyId)
  if (other === -1) return undefined
  return fail(
    'FORBIDDEN',
    `version ${other + 1} of this page was not written with your API key: an agent undoes only its own writes; ` +
      'ask a member of the workspace',
    [`version: ${other + 1} was written by a person, another agent, or approved in review`],
  )
}

export const page: Decider<PageCommand, PageEvent, PageState> = {
  events: PageEvent,
  initialState: () => ({ status: 'none' }),
  evolve: (state, event) => {
    switch (event.type) {
      case 'PageCreated':
        return {
          status: 'active',
          workspaceId: event.data.workspaceId,
          title: event.data.title,
          collectionId: event.data.collectionId ?? null,
          version: 0,
          content: '',
          events: 1,
          versionAt: [],
          agentOf: [],
          verifiedVersion: null,
          verifiedContent: null,
          published: {},
        }
      case 'PageVersionWritten':
        if (state.status === 'none') return state
        return {
          ...state,
          version: event.data.version,
          content: event.data.content,
          events: state.events + 1,
          versionAt: [...state.versionAt, state.events],
          agentOf: [...state.agentOf, writingAgent(event.data)],
          verifiedVersion: carriesPin(state, event.data.content) ? event.data.version : state.verifiedVersion,
          published: event.data.proposalId
            ? { ...state.published, [event.data.proposalId]: event.data.version }
            : state.published,
        }
      case 'PageCollectionChanged':
        return state.status === 'none'
          ? state
          : { ...state, events: state.events + 1, collectionId: event.data.collectionId }
      case 'PageVerified':
        return state.status === 'none'
          ? state
          : {
              ...state,
              events: state.events + 1,
              verifiedVersion: event.data.version,
              verifiedContent: event.data.version === state.version ? state.content : null,
            }
      case 'PageDeleted':
        return state.status === 'none' ? state : { ...state, events: state.events + 1, status: 'deleted' }
      default:
        return assertNever(event)
    }
  },
  decide: (command, state) => {
    if (command.type === 'CreatePage') {
      if (state.status !== 'none')
        return state.status === 'active' && command.data.proposalId && state.published[command.data.proposalId]
          ? E.right([])
          : fail('CONFLICT', 'the page already exists')
      const { content, author, added, removed, proposalId, approvedBy, ...created } = command.data
      const w = {
        content,
        author,
        added,
        removed,
        ...(proposalId ? { proposalId } : {}),
        ...(approvedBy ? { approvedBy } : {}),
      }
      return E.right([
        { type: 'PageCreated', data: created },
        { type: 'PageVersionWritten', data: { pageId: created.pageId, version: 1, mode: 'create', ...w } },
      ])
    }
    if (state.status !== 'active' || state.workspaceId !== command.workspaceId)
      return fail('NOT_FOUND', 'page not found')
    switch (command.type) {
      case 'WritePage': {
        const { pageId, mode, expectedVersion, ...w } = command.data
        if (w.proposalId && state.published[w.proposalId]) return E.right([])
        if (expectedVersion !== undefined && expectedVersion !== state.version)
          return versionConflict(state.version, expectedVersion)
        // The same content again is already written: no version, and a verified page stays verified.
        if (w.content === state.content) return E.right([])
        return E.right(versionOf(state, pageId, mode, w))
      }
      case 'RevertPage': {
        const { pageId, toVersion, expectedVersion, ...w } = command.data
        if (expectedVersion !== undefined && expectedVersion !== state.version)
          return versionConflict(state.version, expectedVersion)
        if (toVersion < 1 || toVersion > state.version)
          return fail('VALIDATION_ERROR', `the page has versions 1 to ${state.version}`, [
            `version: must be between 1 and ${state.version}`,
          ])
        const notOwn = onlyOwnWrites(state, toVersion, command.ownWritesOf)
        if (notOwn) return notOwn
        if (w.content === state.content) return E.right([])
        return E.right(versionOf(state, pageId, 'revert', w, { revertedFrom: toVersion }))
      }
      case 'ChangeCollection':
        if (state.collectionId === command.data.collectionId) return E.right([])
        return E.right([{ type: 'PageCollectionChanged', data: command.data }])
      case 'VerifyPage':
        if (state.verifiedVersion === state.version) return E.right([])
        return E.right([
          { type: 'PageVerified', data: { pageId: command.data.pageId, version: state.version, by: command.data.by } },
        ])
      case 'DeletePage':
        return onlyOwnWrites(state, 0, command.ownWritesOf) ?? E.right([{ type: 'PageDeleted', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
