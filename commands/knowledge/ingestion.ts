import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { type DomainError, fail } from '../../domain/shared'
import { type TaskQueued, type TaskResult, task } from '../../domain/knowledge/task'
import { type CommandContext, answered } from '../handle'
import type { KnowledgeDeps } from './knowledge'
import { loadKbConfig } from './kbConfig'
import { firstChars } from './fileNames'
import type { Prepared } from './prepareContent'
import { entries, tasks } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/**
 * Queues a re-read of a URL entry. When a sync is already pending or running nothing is queued
 * and `taskId` is absent (the API answers "unchanged"). `force` reprocesses unchanged content.
 * Only one sync of an entry is ever pending: the entry's stream decides, whichever process asks.
 */
export const requestSync = async (
  deps: KnowledgeDeps,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  force: boolean,
): Result<{ taskId?: string }> => {
  const taskId = randomUUID()
  const requested = await entries
    .on(deps.store, entryId)
    .handle({ type: 'RequestSync', data: { workspaceId, entryId, taskId } }, ctx)
  if (E.isLeft(requested)) return requested
  if (requested.right.events.length === 0) return E.right({ position: 0 })
  return queueSyncTask(deps, ctx, workspaceId, entryId, taskId, force)
}

/**
 * The task of a requested sync. Also called by the scheduler for a sync whose request was
 * written but whose task was not (a crash between the two appends).
 */
export const queueSyncTask = async (
  deps: KnowledgeDeps,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  taskId: string,
  force: boolean,
): Result<{ taskId: string }> => {
  const { state } = await entries.on(deps.store, entryId).load()
  if (state.status !== 'active' || !state.sourceUrl) return fail('NOT_FOUND', 'knowledge entry not found')
  const config = await loadKbConfig(deps.store, workspaceId)
  const queued = await tasks.on(deps.store, taskId).handle(
    {
      type: 'QueueTask',
      data: {
        taskId,
        workspaceId,
        entryId,
        kind: 'sync',
        force,
        title: state.title,
        chunking: state.chunking,
        embed: state.embed,
        maxBytes: config.maxFileSize,
        input: {
          type: 'url',
          url: state.sourceUrl,
          crawl: state.crawl ?? { depth: 0, maxPages: 1, sameDomainOnly: true },
        },
      },
    },
    ctx,
  )
  if (E.isLeft(queued)) return queued
  return E.right({ taskId, position: queued.right.position })
}

export const configureSync = async (
  deps: KnowledgeDeps,
  ctx: CommandContext,
  workspaceId: string,
  entryId: string,
  settings: { enabled: boolean; intervalHours: number },
): Result<{ id: string }> => {
  const done = await entries
    .on(deps.store, entryId)
    .handle({ type: 'ConfigureSync', data: { workspaceId, entryId, settings } }, ctx)
  return answered({ id: entryId })(done)
}

// The worker's side: each transition is refused or empty when already made.

const onTask = (
  deps: Pick<KnowledgeDeps, 'store'>,
  ctx: CommandContext,
  taskId: string,
  command: Parameters<typeof task.decide>[0],
) => tasks.on(deps.store, taskId).handle(command, ctx)

/** A task still to run (pending, or processing when its worker stopped), as it was queued; undefined once it ended. */
export const taskToRun = async (
  store: KnowledgeDeps['store'],
  taskId: string,
): Promise<TaskQueued['data'] | undefined> => {
  const { state } = await tasks.on(store, taskId).load()
  return state.status === 'pending' || state.status === 'processing' ? state.task : undefined
}

/** The entry a task fills, while it exists: with the hash of its content (a sync of the same bytes changes nothing). */
export const entryToFill = async (store: KnowledgeDeps['store'], entryId: string) => {
  const { state } = await entries.on(store, entryId).load()
  return state.status === 'active' ? { contentHash: state.contentHash } : undefined
}

export const startTask = (deps: Pick<KnowledgeDeps, 'store'>, ctx: CommandContext, taskId: string) =>
  onTask(deps, ctx, taskId, { type: 'StartTask', data: { taskId } })
export const progressTask = (
  deps: Pick<KnowledgeDeps, 'store'>,
  ctx: CommandContext,
  taskId: string,
  step: string,
  progress: number,
) => onTask(deps, ctx, taskId, { type: 'ProgressTask', data: { taskId, step, progress } })

/** The entry takes the content, then the task completes: a crash between is redone without a duplicate. */
export const completeTask = async (
  deps: Pick<KnowledgeDeps, 'store'>,
  ctx: CommandContext,
  ref: { taskId: string; workspaceId: string; entryId: string },
  outcome: { prepared: Prepared; contentHash: string; sync: boolean } | 'unchanged',
  result: TaskResult,
) => {
  const { taskId, workspaceId, entryId } = ref
  const onEntry = await entries.on(deps.store, entryId).handle(
    outcome === 'unchanged'
      ? { type: 'KeepUnchanged', data: { workspaceId, entryId, taskId } }
      : {
          type: 'ProcessContent',
          data: {
            workspaceId,
            entryId,
            taskId,
            ...outcome.prepared,
            contentHash: outcome.contentHash,
            sync: outcome.sync,
          },
        },
    ctx,
  )
  if (E.isLeft(onEntry))
    return onTask(deps, ctx, taskId, {
      type: 'FailTask',
      data: { taskId, error: 'the entry was deleted while it was being processed' },
    })
  return onTask(deps, ctx, taskId, { type: 'CompleteTask', data: { taskId, result } })
}

/**
 * An untitled upload takes the title its document gives (a heading, the title in its properties),
 * unless someone renamed the entry since it was named after the file (`provisional`). Answers the
 * title the entry bears then (its chunks are embedded with it), whether or not this changed it.
 */
export const titleFromDocument = async (
  deps: Pick<KnowledgeDeps, 'store'>,
  ctx: CommandContext,
  ref: { workspaceId: string; entryId: string },
  provisional: string,
  title: string,
): Promise<E.Either<DomainError, string>> => {
  const wanted = firstChars(title.trim(), 500)
  let bears = provisional
  const done = await entries.on(deps.store, ref.entryId).handle((state) => {
    if (state.status === 'active') bears = state.title
    const data = { workspaceId: ref.workspaceId, entryId: ref.entryId, provisional, title: wanted }
    return E.right({ type: 'TitleFromDocument', data } as const)
  }, ctx)
  return E.map((h: { events: unknown[] }) => (h.events.length ? wanted : bears))(done)
}

export const failTask = async (
  deps: Pick<KnowledgeDeps, 'store'>,
  ctx: CommandContext,
  ref: { taskId: string; workspaceId: string; entryId: string; sync: boolean },
  error: string,
) => {
  const { taskId, workspaceId, entryId, sync } = ref
  await entries
    .on(deps.store, entryId)
    .handle({ type: 'FailProcessing', data: { workspaceId, entryId, taskId, error, sync } }, ctx)
  return onTask(deps, ctx, taskId, { type: 'FailTask', data: { taskId, error } })
}
