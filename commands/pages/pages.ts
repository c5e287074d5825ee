import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { appended, changeSize } from '../../adapters/diff'
import type { Queryable } from '../../adapters/db'
import { ensureEmbedded, pageEmbeddingInput } from '../../adapters/embeddingCache'
import type { Embedder } from '../../adapters/embedders/port'
import type { EventStore } from '../../adapters/eventstore/port'
import {
  type Author,
  type PageCommand,
  type PageEvent,
  type PageState,
  type Person,
  page,
} from '../../domain/pages/page'
import { type DomainError, fail } from '../../domain/shared'
import { type CommandContext, answered } from '../handle'
import { nameKey, release, reservations, reserve } from '../reservations'
import { pages } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/** What writing a version takes: the log, and the model and cache that embed the version before it is written. */
export interface PageDeps {
  store: EventStore
  db: Queryable
  embedder: Embedder
}

/** The page services out of a handler's (the database as its pool). */
export const pageDeps = (deps: { store: EventStore; db: { pool: Queryable }; embedder: Embedder }): PageDeps => ({
  store: deps.store,
  db: deps.db.pool,
  embedder: deps.embedder,
})

/**
 * A version's vector, made before its event is appended: the page index only reads it from the
 * cache, so no projection transaction waits for the model. A model that fails here does not fail
 * the write: the index records the vector as missing and it is filled in later.
 */
const embedVersion = async (deps: PageDeps, title: string, content: string) => {
  await ensureEmbedded(deps.db, deps.embedder, [pageEmbeddingInput(title, content)]).catch(() => undefined)
}

/** A page's content, whole, may not grow past this (an append that would is refused). */
export const PAGE_MAX_CHARS = 500_000

/** What a write answers: the page and the version it made (or already had, for a retried approval). */
export interface Written {
  pageId: string
  title: string
  version: number
  /** Size of the change the write made (0 and 0 when it had been made already). */
  added: number
  removed: number
  /** Set when no version was written: the page already had this content. */
  unchanged?: true
}

// Titles are unique per workspace, case-insensitively, through a reservation stream.
const scope = (workspaceId: string) => `page-title:${workspaceId}`

/** The id of the page holding a title in the workspace, if one does (activePage says whether it is live). */
export const pageIdByTitle = async (store: EventStore, workspaceId: string, title: string) =>
  (await reservations.on(store, scope(workspaceId), nameKey(title)).load()).state.ownerId ?? undefined

/** The page's state when it is live in the workspace. */
export const activePage = async (store: EventStore, workspaceId: string, pageId: string) => {
  const { state } = await pages.on(store, pageId).load()
  return state.status === 'active' && state.workspaceId === workspaceId ? state : undefined
}

const tooLong = (n: number) =>
  fail('VALIDATION_ERROR', `the page would be ${n} characters long, over ${PAGE_MAX_CHARS}`, [
    `content: the page may hold at most ${PAGE_MAX_CHARS} characters`,
  ])

export interface CreatePageInput {
  workspaceId: string
  title: string
  content: string
  author: Author
  collectionId?: string
  /** Set when an approved proposal creates the page: the id the proposal named. */
  pageId?: string
  proposalId?: string
  approvedBy?: Person
}

export const createPage = async (deps: PageDeps, ctx: CommandContext, input: CreatePageInput): Result<Written> => {
  const { store } = deps
  const pageId = input.pageId ?? randomUUID()
  const title = input.title.trim()
  if (input.content.length > PAGE_MAX_CHARS) return tooLong(input.content.length)
  if (E.isLeft(await reserve(store, ctx, scope(input.workspaceId), nameKey(title), pageId, pages.stream))) {
    return fail('CONFLICT', `a page titled "${title}" already exists`, [`title: "${title}" is taken`])
  }
  await embedVersion(deps, title, input.content)
  const { collectionId, proposalId, approvedBy } = input
  const size = changeSize('', input.content)
  const done = await pages.on(store, pageId).handle(
    {
      type: 'CreatePage',
      data: {
        pageId,
        workspaceId: input.workspaceId,
        title,
        content: input.content,
        author: input.author,
        ...size,
        ...(collectionId ? { collectionId } : {}),
        ...(proposalId ? { proposalId } : {}),
        ...(approvedBy ? { approvedBy } : {}),
      },
    },
    ctx,
  )
  return answered({ pageId, title, version: 1, ...size })(done)
}

/**
 * Sends a command built from the page's current state; answers the version written (or already
 * there). The version the state read now would give is embedded first (a concurrent write may
 * change it: the index then fills its vector in later).
 */
const writeWith = async (
  deps: PageDeps,
  ctx: CommandContext,
  pageId: string,
  build: (state: PageState) => E.Either<DomainError, PageCommand>,
): Result<Written> => {
  const { store } = deps
  const now = (await pages.on(store, pageId).load()).state
  const planned = build(now)
  if (now.status === 'active' && E.isRight(planned) && 'content' in planned.right.data)
    await embedVersion(deps, now.title, planned.right.data.content)
  let seen: PageState = page.initialState()
  const done = await pages.on(store, pageId).handle((state) => {
    seen = state
    return build(state)
  }, ctx)
  if (E.isLeft(done)) return done
  const state = seen as Extract<PageState, { version: number }>
  const written = done.right.events.find(
    (e): e is Extract<PageEvent, { type: 'PageVersionWritten' }> => e.type === 'PageVersionWritten',
  )
  return E.right({
    pageId,
    title: state.title,
    version: written?.data.version ?? state.version,
    added: written?.data.added ?? 0,
    removed: written?.data.removed ?? 0,
    ...(written ? {} : { unchanged: true as const }),
    position: done.right.position,
  })
}

export interface WritePageInput {
  workspaceId: string
  pageId: string
  mode: 'append' | 'replace'
  content: string
  author: Author
  expectedVersion?: number
  proposalId?: string
  approvedBy?: Person
}

/** Appends a version: the content appended to the latest, or replacing it. Nothing is overwritten. */
export const writePage = (deps: PageDeps, ctx: CommandContext, input: WritePageInput): Result<Written> =>
  writeWith(deps, ctx, input.pageId, (state) => {
    const { workspaceId, pageId, mode, content, author, expectedVersion, proposalId, approvedBy } = input
    const before = state.status === 'none' ? '' : state.content
    const after = mode === 'append' ? appended(before, content) : content
    if (after.length > PAGE_MAX_CHARS) return tooLong(after.length)
    return E.right({
      type: 'WritePage',
      workspaceId,
      data: {
        pageId,
        mode,
        content: after,
        author,
        ...changeSize(before, after),
        ...(expectedVersion !== undefined ? { expectedVersion } : {}),
        ...(proposalId ? { proposalId } : {}),
        ...(approvedBy ? { approvedBy } : {}),
      },
    })
  })

/**
 * The content of a version of the page, read at the event that wrote it (the page's state keeps only the
 * latest; undefined: no such version).
 */
export const versionContent = async (store: EventStore, pageId: string, state: PageState, version: number) => {
  if (state.status === 'none' || version < 1 || version > state.version) return undefined
  const [event] = await store.readStream(pages.stream(pageId), {
    fromRevision: state.versionAt[version - 1],
    maxCount: 1,
  })
  return (event?.data as { content?: string } | undefined)?.content
}

/** A new version restoring the content of `version`; the history stays as it was. */
export const revertPage = async (
  deps: PageDeps,
  ctx: CommandContext,
  workspaceId: string,
  pageId: string,
  version: number,
  author: Author,
  expectedVersion?: number,
  /** An agent undoing its own writes: refused if a later version is someone else's. */
  ownWritesOf?: string,
): Result<Written> => {
  // Versions never change: the content read before the command is still that version's.
  const { store } = deps
  const restored = (await versionContent(store, pageId, (await pages.on(store, pageId).load()).state, version)) ?? ''
  return writeWith(deps, ctx, pageId, (state) => {
    const before = state.status === 'none' ? '' : state.content
    return E.right({
      type: 'RevertPage',
      workspaceId,
      data: {
        pageId,
        toVersion: version,
        content: restored,
        author,
        ...changeSize(before, restored),
        ...(expectedVersion !== undefined ? { expectedVersion } : {}),
      },
      ...(ownWritesOf !== undefined ? { ownWritesOf } : {}),
    })
  })
}

const send = async (store: EventStore, ctx: CommandContext, command: Exclude<PageCommand, { type: 'CreatePage' }>) => {
  const done = await pages.on(store, command.data.pageId).handle(command, ctx)
  return answered({ id: command.data.pageId })(done)
}

/** Pins the latest version as verified by a person. */
export const verifyPage = (store: EventStore, ctx: CommandContext, workspaceId: string, pageId: string, by: Person) =>
  send(store, ctx, { type: 'VerifyPage', workspaceId, data: { pageId, by } })

export const setPageCollection = (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  pageId: string,
  collectionId: string | null,
) => send(store, ctx, { type: 'ChangeCollection', workspaceId, data: { pageId, collectionId } })

/**
 * Deletes the page (its versions leave the read models) and frees its title. `ownWritesOf`: an agent taking back
 * a page it made, refused if any version is someone else's.
 */
export const deletePage = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  pageId: string,
  ownWritesOf?: string,
) => {
  const state = await activePage(store, workspaceId, pageId)
  const done = await send(store, ctx, {
    type: 'DeletePage',
    workspaceId,
    data: { pageId },
    ...(ownWritesOf !== undefined ? { ownWritesOf } : {}),
  })
  if (E.isRight(done) && state) await release(store, ctx, scope(workspaceId), nameKey(state.title), pageId)
  return done
}
