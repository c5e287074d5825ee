import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { changeSize } from '../../adapters/diff'
import type { EventStore } from '../../adapters/eventstore/port'
import { type Author, type PageState, versionConflict } from '../../domain/pages/page'
import { type DomainError, fail } from '../../domain/shared'
import { activeCollection, collectionNotFound } from './collections'
import { type CommandContext, answered } from '../handle'
import {
  PAGE_MAX_CHARS,
  activePage,
  createPage,
  deletePage,
  pageIdByTitle,
  revertPage,
  versionContent,
  writePage,
  type PageDeps,
} from './pages'
import { proposedContent } from '../../queries/pages/proposals'
import { nameKey } from '../reservations'
import { proposals } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>
type Live = Extract<PageState, { version: number }>

export interface PageWriteInput {
  workspaceId: string
  author: Author
  title?: string
  pageId?: string
  mode: 'create' | 'append' | 'replace'
  content: string
  expectedVersion?: number
  /** The collection of a page this write creates. */
  collectionId?: string
}

export type PageWriteOutcome =
  | { held: false; pageId: string; title: string; version: number; receipt: string; undo?: Undo }
  | { held: true; proposalId: string; status: 'pending'; pageId: string; title: string; receipt: string }

const lines = (added: number, removed: number) => `+${added} -${removed} lines`

interface Saved {
  pageId: string
  title: string
  version: number
  added: number
  removed: number
  unchanged?: true
}

/** A tool call that takes a write back, which the agent that made it may run with its own key. */
export interface Undo {
  tool: 'page_delete' | 'page_revert'
  arguments: Record<string, string | number>
}

const undoOf = (w: Saved): Undo | undefined =>
  w.unchanged
    ? undefined
    : w.version === 1
      ? { tool: 'page_delete', arguments: { pageId: w.pageId } }
      : { tool: 'page_revert', arguments: { pageId: w.pageId, version: w.version - 1, expectedVersion: w.version } }

const receiptOf = (w: Saved) => {
  const undo = undoOf(w)
  const call = undo ? ` To undo: ${undo.tool} ${JSON.stringify(undo.arguments)}` : ''
  return w.unchanged
    ? `Page "${w.title}" (id ${w.pageId}) already has this content at version ${w.version}; nothing was written.`
    : w.version === 1
      ? `Created page "${w.title}" (id ${w.pageId}) at version 1 (${lines(w.added, w.removed)}).${call}`
      : `Saved page "${w.title}" (id ${w.pageId}) as version ${w.version} (${lines(w.added, w.removed)}).${call}`
}

/** What a write that was not held answers: the version, the receipt, and its undo. */
const savedOutcome = (w: Saved, position: number) => {
  const undo = undoOf(w)
  return {
    held: false as const,
    pageId: w.pageId,
    title: w.title,
    version: w.version,
    receipt: receiptOf(w),
    ...(undo ? { undo } : {}),
    position,
  }
}

/** The page a write names, by id or by title; undefined when no such page lives in the workspace. */
const resolve = async (store: EventStore, input: PageWriteInput): Promise<{ id: string; state: Live } | undefined> => {
  const id = input.pageId ?? (await pageIdByTitle(store, input.workspaceId, input.title ?? ''))
  const state = id ? await activePage(store, input.workspaceId, id) : undefined
  return id && state ? { id, state } : undefined
}

/** A pageId and a title that name different pages: which one was meant cannot be told. */
export const namesTwoPages = (title: string) =>
  fail('VALIDATION_ERROR', 'pageId and title name different pages', [
    `title: the page of this pageId is titled "${title}"; give pageId or title, or both of the same page`,
  ])

/** How long an append that lost the race to create its page looks again for that page. */
const APPEND_WAIT_MS = 10_000

/**
 * `page_write`: create, append to or replace a page. A page is found by id or title; append
 * creates a missing page; replace (and append) may be guarded by expectedVersion. An agent's write
 * into a collection that holds agent writes becomes a proposal and leaves the page untouched.
 */
export const writePageByMode = async (
  deps: PageDeps,
  ctx: CommandContext,
  input: PageWriteInput,
  attempt = 0,
  since = Date.now(),
): Result<PageWriteOutcome> => {
  const { store } = deps
  if (input.mode === 'create' && input.expectedVersion !== undefined) {
    return fail('VALIDATION_ERROR', 'the request is not valid', [
      'expectedVersion: a create makes version 1; expectedVersion guards append and replace',
    ])
  }
  const found = await resolve(store, input)
  if (!found && input.pageId) return fail('NOT_FOUND', 'page not found', ['pageId: no such page in this workspace'])
  if (found && input.pageId && input.title !== undefined && nameKey(input.title) !== nameKey(found.state.title))
    return namesTwoPages(found.state.title)
  if (!found && input.mode === 'replace')
    return fail('NOT_FOUND', `no page titled "${input.title}"`, [
      'title: no such page; use mode create or append to make it',
    ])
  if (found && input.mode === 'create')
    return fail('CONFLICT', `a page titled "${found.state.title}" already exists (version ${found.state.version})`, [
      `title: "${found.state.title}" is taken`,
    ])
  if (found && input.expectedVersion !== undefined && input.expectedVersion !== found.state.version)
    return versionConflict(found.state.version, input.expectedVersion)
  const collectionId = found ? found.state.collectionId : (input.collectionId ?? null)
  const target = collectionId ? await activeCollection(store, input.workspaceId, collectionId) : undefined
  if (collectionId && !found && !target) return collectionNotFound()
  if (input.author.kind === 'agent' && target?.writePolicy === 'hold_for_review')
    return propose(store, ctx, input, found, collectionId!)
  const written = found
    ? await writePage(deps, ctx, {
        ...input,
        pageId: found.id,
        mode: input.mode === 'create' ? 'replace' : input.mode,
      })
    : await createPage(deps, ctx, { ...input, title: input.title ?? '', ...(collectionId ? { collectionId } : {}) })
  // Appends creating the same page at once: the others append to the page the first made, once
  // it exists (its title is reserved a moment before its first version is written).
  if (
    E.isLeft(written) &&
    written.left.code === 'CONFLICT' &&
    !found &&
    input.mode === 'append' &&
    Date.now() - since < APPEND_WAIT_MS
  ) {
    await new Promise((r) => setTimeout(r, Math.min(200, 5 * 2 ** attempt)))
    return writePageByMode(deps, ctx, input, attempt + 1, since)
  }
  return E.map((w: Saved & { position: number }) => savedOutcome(w, w.position))(written)
}

/**
 * An agent's undo of a page write: where the page's collection holds agent writes for review, a
 * proposal to restore the version (a person decides); elsewhere a revert of its own later versions,
 * refused if one of them is someone else's.
 */
export const revertAsAgent = async (
  deps: PageDeps,
  ctx: CommandContext,
  input: { workspaceId: string; pageId: string; version: number; expectedVersion?: number; author: Author },
): Result<PageWriteOutcome> => {
  const { store } = deps
  const found = await resolve(store, { ...input, mode: 'replace', content: '' })
  if (!found) return fail('NOT_FOUND', 'page not found', ['pageId: no such page in this workspace'])
  const { collectionId } = found.state
  const target = collectionId ? await activeCollection(store, input.workspaceId, collectionId) : undefined
  if (collectionId && target?.writePolicy === 'hold_for_review') {
    if (input.expectedVersion !== undefined && input.expectedVersion !== found.state.version)
      return versionConflict(found.state.version, input.expectedVersion)
    const content = await versionContent(store, found.id, found.state, input.version)
    if (content === undefined)
      return fail('VALIDATION_ERROR', `the page has versions 1 to ${found.state.version}`, [
        `version: must be between 1 and ${found.state.version}`,
      ])
    return propose(store, ctx, { ...input, mode: 'replace', content }, found, collectionId)
  }
  // An agent without a key (none today) undoes nothing of anyone's.
  const keyId = input.author.kind === 'agent' ? (input.author.keyId ?? '') : undefined
  const reverted = await revertPage(
    deps,
    ctx,
    input.workspaceId,
    found.id,
    input.version,
    input.author,
    input.expectedVersion,
    keyId,
  )
  return E.map((w: Saved & { position: number }) => savedOutcome(w, w.position))(reverted)
}

/**
 * An agent taking back a page it made, while every version was written with its key. Not in a collection
 * that holds agent writes for review: a deletion there is a person's to make.
 */
export const deleteAsAgent = async (
  store: EventStore,
  ctx: CommandContext,
  workspaceId: string,
  pageId: string,
  keyId: string,
) => {
  const state = await activePage(store, workspaceId, pageId)
  if (!state) return fail('NOT_FOUND', 'page not found')
  const target = state.collectionId ? await activeCollection(store, workspaceId, state.collectionId) : undefined
  if (target?.writePolicy === 'hold_for_review')
    return fail('FORBIDDEN', "this page's collection holds agent writes for review: deleting it is for a person", [
      'pageId: ask a member of the workspace to delete it',
    ])
  return deletePage(store, ctx, workspaceId, pageId, keyId)
}

const propose = async (
  store: EventStore,
  ctx: CommandContext,
  input: PageWriteInput,
  found: { id: string; state: Live } | undefined,
  collectionId: string,
): Result<PageWriteOutcome> => {
  const base = found ? found.state.content : ''
  const after = proposedContent(input, base)
  // Nothing to review: the page already reads so.
  if (found && after === base) {
    const w = {
      pageId: found.id,
      title: found.state.title,
      version: found.state.version,
      added: 0,
      removed: 0,
      unchanged: true as const,
    }
    return E.right(savedOutcome(w, 0))
  }
  if (after.length > PAGE_MAX_CHARS)
    return fail('VALIDATION_ERROR', `the page would be ${after.length} characters long, over ${PAGE_MAX_CHARS}`, [
      `content: the page may hold at most ${PAGE_MAX_CHARS} characters`,
    ])
  const proposalId = randomUUID()
  const pageId = found?.id ?? randomUUID()
  const title = found?.state.title ?? (input.title ?? '').trim()
  const size = changeSize(base, after)
  const done = await proposals.on(store, proposalId).handle(
    {
      type: 'SubmitProposal',
      data: {
        proposalId,
        workspaceId: input.workspaceId,
        pageId,
        newPage: !found,
        title,
        collectionId,
        mode: input.mode,
        content: input.content,
        baseVersion: found?.state.version ?? 0,
        author: input.author,
        ...size,
      },
    },
    ctx,
  )
  const receipt =
    `Your change to "${title}" (${lines(size.added, size.removed)}) is held for review as proposal ${proposalId}; ` +
    'the page is unchanged until a person approves it. Check it with kb_proposal_status.'
  return answered({ held: true as const, proposalId, status: 'pending' as const, pageId, title, receipt })(done)
}
