// A URL or file entry: created empty, with the task that fills it.
import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Admission } from '../../domain/knowledge/admission'
import { type CrawlOptions, type StorageInfo } from '../../domain/knowledge/entry'
import { type TaskInput } from '../../domain/knowledge/task'
import type { DomainError } from '../../domain/shared'
import { type CommandContext } from '../handle'
import { type CreateEntryInput, type KnowledgeDeps, actorIdOf, stayInFolder, storedSource } from './knowledge'
import { entries, tasks } from './aggregates'

/** URL entries start with syncing off, checked daily once switched on. */
export const DEFAULT_SYNC = { enabled: false, intervalHours: 24 }

/** `titleFromDocument`: the client gave a file no title, so its task titles the entry from the document. */
export type SourcedInput = Omit<CreateEntryInput, 'content'> &
  ({ url: string; crawl: CrawlOptions } | { storage: StorageInfo; titleFromDocument?: boolean })

/**
 * A URL or file entry, admitted (`admitEntry`): created empty with a pending task that fills it. The task is written
 * first: a crash before the entry leaves only a task that fails for want of its entry, never an
 * entry stuck pending (the outbox holds a task back until its entry exists).
 */
export const createSourcedEntry = async (
  deps: KnowledgeDeps,
  ctx: CommandContext,
  { chunking, embed, maxBytes }: Admission,
  input: SourcedInput,
): Promise<E.Either<DomainError, { id: string; taskId: string; position: number }>> => {
  const id = randomUUID()
  const taskId = randomUUID()
  const taskInput: TaskInput =
    'url' in input ? { type: 'url', url: input.url, crawl: input.crawl } : { type: 'file', ...input.storage }
  const queued = await tasks.on(deps.store, taskId).handle(
    {
      type: 'QueueTask',
      data: {
        taskId,
        workspaceId: input.workspaceId,
        entryId: id,
        kind: 'ingest',
        force: true,
        input: taskInput,
        title: input.title,
        ...('titleFromDocument' in input && input.titleFromDocument ? { titleFromDocument: true } : {}),
        chunking,
        embed,
        maxBytes,
      },
    },
    ctx,
    { fresh: true },
  )
  if (E.isLeft(queued)) return queued
  const { chunkingOptions: _, ...fields } = input
  const {
    url: _u,
    crawl: _c,
    storage: _s,
    titleFromDocument: _t,
    ...common
  } = fields as typeof fields & {
    url?: string
    crawl?: CrawlOptions
    storage?: StorageInfo
    titleFromDocument?: boolean
  }
  const done = await entries.on(deps.store, id).handle(
    {
      type: 'CreateEntry',
      data: {
        ...common,
        content: '',
        tokenCount: 0,
        chunks: [],
        entryId: id,
        source: storedSource(input.source),
        chunking,
        embed,
        createdBy: actorIdOf(ctx),
        taskId,
        ...('url' in input
          ? { sourceUrl: input.url, crawl: input.crawl, sync: DEFAULT_SYNC }
          : { storage: input.storage }),
      },
    },
    ctx,
    { fresh: true },
  )
  if (E.isLeft(done)) return done
  const { position } = await stayInFolder(
    deps.store,
    ctx,
    { workspaceId: input.workspaceId, entryId: id, folderId: input.folderId },
    done.right.position,
  )
  return E.right({ id, taskId, position })
}
