import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { unifiedDiff } from '../../adapters/diff'
import { type Author, type DomainError, fail } from '../../domain/shared'
import {
  type StoredFiles,
  deleteEntry,
  entries,
  type KnowledgeDeps,
  replaceEntryMetadata,
  updateEntry,
} from '../knowledge'
import type { CommandContext } from '../handle'
import { deletePage, revertPage } from '../pages'
import { undos } from './aggregates'

export interface UndoInput {
  /** A user id, an API key id, or an agent client name. */
  actor: string
  from: Date
  to: Date
  dryRun: boolean
  force: boolean
}

export interface UndoItem {
  kind: 'page' | 'entry'
  id: string
  title: string
  /** delete what the actor created; revert a page to the version before its writes; restore an entry's fields. */
  action: 'delete' | 'revert' | 'restore'
  toVersion?: number
  /** What the undo changes (a unified diff of the content), when it changes content. */
  diff?: string
  /** Someone else wrote it after the actor: skipped unless forced. */
  conflict?: string
  status?: 'done' | 'skipped' | 'failed'
  reason?: string
  /** The entry's fields as they were before the actor's first change. */
  restore?: { title?: string; content?: string; metadata?: Record<string, unknown>; isEnabled?: boolean }
}

export interface UndoDeps extends KnowledgeDeps {
  files: StoredFiles
}

/** Whether a version's author is the actor ($2): a person by user id, an agent by client or API key id. */
const AUTHOR_IS = `coalesce(author->>'userId' = $2 OR author->>'client' = $2 OR author->>'keyId' = $2, false)`

/** The pages the actor wrote in the window: reverted to the version before its first, or deleted if it made them. */
const pagePlan = async (deps: UndoDeps, workspaceId: string, input: UndoInput): Promise<UndoItem[]> => {
  const { rows } = await deps.db.query<{ page_id: string; title: string; first: number; content: string }>(
    `SELECT v.page_id, p.title, min(v.version)::int AS first, p.content FROM kb_page_versions v
     JOIN kb_pages p ON p.id = v.page_id
     WHERE v.workspace_id = $1 AND v.created_at BETWEEN $3 AND $4 AND ${AUTHOR_IS.replaceAll('author', 'v.author')}
     GROUP BY v.page_id, p.title, p.content ORDER BY v.page_id`,
    [workspaceId, input.actor, input.from, input.to],
  )
  return Promise.all(
    rows.map(async (r) => {
      const { rows: others } = await deps.db.query<{ version: number }>(
        `SELECT version FROM kb_page_versions WHERE page_id = $1 AND version > $3 AND NOT ${AUTHOR_IS}
         ORDER BY version LIMIT 1`,
        [r.page_id, input.actor, r.first],
      )
      const conflict = others[0] ? `version ${others[0].version} was written by someone else since` : undefined
      if (r.first === 1)
        return { kind: 'page' as const, id: r.page_id, title: r.title, action: 'delete' as const, conflict }
      const { rows: before } = await deps.db.query<{ content: string }>(
        'SELECT content FROM kb_page_versions WHERE page_id = $1 AND version = $2',
        [r.page_id, r.first - 1],
      )
      const restored = before[0]?.content ?? ''
      return {
        kind: 'page' as const,
        id: r.page_id,
        title: r.title,
        action: 'revert' as const,
        toVersion: r.first - 1,
        diff: unifiedDiff(r.content, restored, 'now', `v${r.first - 1}`),
        ...(conflict ? { conflict } : {}),
      }
    }),
  )
}

/** The entries the actor created (deleted) or changed (their fields restored to before its first change). */
const entryPlan = async (deps: UndoDeps, workspaceId: string, input: UndoInput): Promise<UndoItem[]> => {
  const { rows } = await deps.db.query<{ stream_id: string; first: number; created: boolean; title: string }>(
    `SELECT a.stream_id, min(a.revision)::int AS first, bool_or(a.type = 'EntryCreated') AS created, e.title
     FROM audit_events a JOIN kb_entries e ON 'entry-' || e.id = a.stream_id
     WHERE a.workspace_id = $1 AND a.actor_id = $2 AND a.time BETWEEN $3 AND $4
       AND a.type IN ('EntryCreated', 'EntryUpdated', 'EntryMetadataReplaced')
     GROUP BY a.stream_id, e.title ORDER BY a.stream_id`,
    [workspaceId, input.actor, input.from, input.to],
  )
  const items: UndoItem[] = []
  for (const r of rows) {
    const id = r.stream_id.slice('entry-'.length)
    const { rows: others } = await deps.db.query<{ type: string; actor_id: string }>(
      `SELECT type, actor_id FROM audit_events WHERE stream_id = $1 AND revision > $2 AND actor_id <> $3
         AND actor->>'kind' <> 'system' ORDER BY position LIMIT 1`,
      [r.stream_id, r.first, input.actor],
    )
    const conflict = others[0] ? `${others[0].actor_id} changed it since (${others[0].type})` : undefined
    if (r.created) {
      items.push({ kind: 'entry', id, title: r.title, action: 'delete', ...(conflict ? { conflict } : {}) })
      continue
    }
    // The entry as it stood before the actor's first change, folded from its stream.
    const earlier = await deps.store.readStream(r.stream_id, { maxCount: r.first })
    let then = entries.decider.initialState()
    for (const e of earlier) {
      const decoded = entries.decider.events.decode({ type: e.type, data: e.data })
      if (E.isRight(decoded)) then = entries.decider.evolve(then, decoded.right)
    }
    const { state: now } = await entries.on(deps.store, id).load()
    if (then.status !== 'active' || now.status !== 'active') continue
    const restore = {
      ...(then.title !== now.title ? { title: then.title } : {}),
      ...(then.content !== now.content ? { content: then.content } : {}),
      ...(JSON.stringify(then.metadata) !== JSON.stringify(now.metadata) ? { metadata: then.metadata } : {}),
      ...(then.isEnabled !== now.isEnabled ? { isEnabled: then.isEnabled } : {}),
    }
    if (Object.keys(restore).length === 0) continue
    items.push({
      kind: 'entry',
      id,
      title: now.title,
      action: 'restore',
      ...(restore.content !== undefined ? { diff: unifiedDiff(now.content, restore.content, 'now', 'restored') } : {}),
      ...(conflict ? { conflict } : {}),
      restore,
    })
  }
  return items
}

const run = async (deps: UndoDeps, ctx: CommandContext, workspaceId: string, by: Author, item: UndoItem) => {
  if (item.kind === 'page')
    return item.action === 'delete'
      ? deletePage(deps.store, ctx, workspaceId, item.id)
      : revertPage(deps, ctx, workspaceId, item.id, item.toVersion!, by)
  if (item.action === 'delete')
    return deleteEntry(deps.store, ctx, workspaceId, item.id, by.kind === 'human' ? by.userId : 'undo', deps.files)
  // The fields an update sets, then the metadata whole: keys the actor added do not survive a merge.
  const { metadata, ...fields } = item.restore!
  let done = E.right({ id: item.id, position: 0 }) as Awaited<ReturnType<typeof updateEntry>>
  if (Object.keys(fields).length > 0) done = await updateEntry(deps, ctx, workspaceId, item.id, fields)
  if (E.isRight(done) && metadata) done = await replaceEntryMetadata(deps.store, ctx, workspaceId, item.id, metadata)
  return done
}

/**
 * Undoes everything one actor wrote in a window, as new events (history is kept): pages back to
 * the version before its writes (or deleted if it made them), entries it made deleted, entries it
 * changed restored. A write by someone else since is a conflict, skipped unless `force`. With
 * `dryRun`, only the plan. The undo is recorded as one UndoPerformed event, whose id every event it
 * caused carries as its causation.
 */
export const undoActor = async (
  deps: UndoDeps,
  ctx: CommandContext,
  workspaceId: string,
  by: Author,
  input: UndoInput,
): Promise<E.Either<DomainError, { undoId?: string; dryRun: boolean; items: UndoItem[]; position: number }>> => {
  if (input.from > input.to) return fail('VALIDATION_ERROR', 'the request is not valid', ['from: must not be after to'])
  const plan = [...(await pagePlan(deps, workspaceId, input)), ...(await entryPlan(deps, workspaceId, input))]
  const shown = (i: UndoItem) => {
    const { restore: _, ...rest } = i
    return rest
  }
  if (input.dryRun) return E.right({ dryRun: true, items: plan.map(shown), position: 0 })
  const undoId = randomUUID()
  const caused = { ...ctx, causationId: undoId }
  let position = 0
  for (const item of plan) {
    if (item.conflict && !input.force) {
      Object.assign(item, { status: 'skipped', reason: item.conflict })
      continue
    }
    const done = await run(deps, caused, workspaceId, by, item)
    if (E.isLeft(done)) Object.assign(item, { status: 'failed', reason: done.left.message })
    else {
      item.status = 'done'
      position = Math.max(position, done.right.position)
    }
  }
  const recorded = await undos.on(deps.store, undoId).handle(
    {
      type: 'RecordUndo',
      data: {
        undoId,
        workspaceId,
        actor: input.actor,
        from: input.from.toISOString(),
        to: input.to.toISOString(),
        force: input.force,
        items: plan.map((i) => ({
          kind: i.kind,
          id: i.id,
          action: i.action,
          status: i.status ?? 'skipped',
          ...(i.toVersion !== undefined ? { toVersion: i.toVersion } : {}),
          ...(i.reason ? { reason: i.reason } : {}),
        })),
      },
    },
    { ...ctx, workspaceId },
    { fresh: true },
  )
  if (E.isRight(recorded)) position = Math.max(position, recorded.right.position)
  return E.right({ undoId, dryRun: false, items: plan.map(shown), position })
}
