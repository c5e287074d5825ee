import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { BlobStore } from '../../adapters/blobs'
import { type Admission, type AdmissionRequest, admit, allowedTypes } from '../../domain/knowledge/admission'
import { type CrawlOptions, type StorageInfo } from '../../domain/knowledge/entry'
import type { KbConfig } from '../../domain/knowledge/kbConfig'
import { type DomainError, fail } from '../../domain/shared'
import { otherThanUtf8, sniffType, textEncoding } from '../../ingestion/sniff'
import { entryCount } from '../../queries/knowledge/knowledge'
import { type CommandContext } from '../handle'
import { acceptUrl } from '../urls'
import { cleanFileName, titleOf } from './fileNames'
import {
  type CreateEntryInput,
  type KnowledgeDeps,
  actorIdOf,
  folderExists,
  stayInFolder,
  storedSource,
} from './knowledge'
import { prepareContent } from './prepareContent'
import { createSourcedEntry } from './sourcedEntry'
import { entries } from './aggregates'

type Result<T> = Promise<E.Either<DomainError, T & { position: number }>>

/** A file as a client sent it: its bytes, its name and the charset its part declared. */
export interface UploadedFile {
  bytes: Buffer
  fileName: string
  /** The charset of the file part's Content-Type: how to read a text file's bytes, never its type. */
  charset?: string
}

export interface NewEntryDeps extends KnowledgeDeps {
  blobs: BlobStore
  /** Whether URLs may point at private networks (tests and closed installations only). */
  allowPrivateUrls: boolean
}

/** A new entry as a client asks for it: text now, or a URL or a file filled by a task. */
export interface NewEntry extends Omit<CreateEntryInput, 'title' | 'content'> {
  /** Required, except for a file: its title then defaults to the file's name. */
  title?: string
  content?: string
  url?: string
  crawl?: Partial<CrawlOptions>
  file?: UploadedFile
}

const invalid = (...details: string[]) => fail('VALIDATION_ERROR', 'the request is not valid', details)

/**
 * Admits an entry made from an uploaded file: its type read from its content, then the workspace's
 * limits (`admitEntry`); only an admitted file is stored, by hash. Refusals list the allowed types.
 */
const admitFile = async (
  deps: Pick<NewEntryDeps, 'store' | 'db' | 'blobs'>,
  config: KbConfig,
  input: Pick<CreateEntryInput, 'workspaceId' | 'folderId' | 'chunkingOptions'>,
  file: UploadedFile,
): Promise<E.Either<DomainError, { admission: Admission; storage: StorageInfo }>> => {
  const fileName = cleanFileName(file.fileName)
  const sniffed = await sniffType(file.bytes, fileName, file.charset)
  if (!sniffed.ok)
    return fail('VALIDATION_ERROR', `file refused: ${sniffed.reason}`, [
      `file: ${sniffed.reason}`,
      allowedTypes(config),
    ])
  const admitted = await admitEntry(deps, config, input, { mimeType: sniffed.mimeType, size: file.bytes.length })
  if (E.isLeft(admitted)) return admitted
  const mimeType = admitted.right.mimeType ?? sniffed.mimeType
  const blob = await deps.blobs.put(file.bytes)
  // The charset a text is read in, when not UTF-8, is kept for its parser.
  const encoding = textEncoding(file.bytes, file.charset)
  const charset = mimeType.startsWith('text/') && encoding === file.charset ? otherThanUtf8(encoding) : undefined
  const storage = { blob, fileName, mimeType, size: file.bytes.length, ...(charset ? { charset } : {}) }
  return E.right({ admission: admitted.right, storage })
}

/**
 * Creates an entry from what a client sent, a step per source: text is chunked now; a URL or a
 * file makes an empty entry and the task that fills it. Answers the entry's id (and its task's,
 * when it has one).
 */
export const createEntry = async (
  deps: NewEntryDeps,
  ctx: CommandContext,
  /** The workspace's configuration as the request read it. */
  config: KbConfig,
  request: NewEntry,
  /** Called once a URL is accepted, before anything is written (the route counts the upload then). */
  admitUrl: () => Promise<void> = async () => undefined,
): Promise<E.Either<DomainError, { id: string; taskId?: string; position: number }>> => {
  const { title: asked, content, url, crawl, file, ...common } = request
  // What the source needs first, then the title (a file's defaults to its name until its task
  // reads the document's own title).
  if (request.source === 'url' && url === undefined) return invalid('url: is required when source is url')
  if (request.source === 'file' && !file)
    return invalid('file: is required when source is file (a multipart/form-data part named file)')
  const title =
    asked?.trim() || (request.source === 'file' && file ? titleOf(cleanFileName(file.fileName), file.bytes) : undefined)
  if (!title) return invalid(`title: is required when source is ${request.source}`)
  if (request.source === 'url' && url !== undefined)
    return fromUrl(deps, ctx, config, { ...common, title }, url, crawl, admitUrl)
  if (request.source === 'file' && file)
    return fromFile(deps, ctx, config, { ...common, title }, file, { titleFromDocument: !asked?.trim() })
  if (content === undefined || content.trim() === '')
    return invalid(`content: is required when source is ${request.source}`)
  return createTextEntry(deps, ctx, config, { ...common, title, content })
}

type Common = Omit<CreateEntryInput, 'content'>

/**
 * Text sent through the deprecated upload: stored and parsed by a task as a Markdown file would be,
 * so that the answer has a task, and kept with the source it was sent as.
 */
export const createQueuedText = async (
  deps: NewEntryDeps,
  ctx: CommandContext,
  config: KbConfig,
  request: Omit<Common, 'title'> & { title?: string; content: string },
) => {
  const { content, title, ...common } = request
  const file = { bytes: Buffer.from(content, 'utf8'), fileName: 'text.md' }
  return fromFile(deps, ctx, config, { ...common, title: title?.trim() || titleOf('', file.bytes) }, file)
}

/** A URL: checked, counted as an upload, admitted, then an empty entry and the task that fetches it. */
const fromUrl = async (
  deps: NewEntryDeps,
  ctx: CommandContext,
  config: KbConfig,
  common: Common,
  url: string,
  crawl: Partial<CrawlOptions> | undefined,
  admitUrl: () => Promise<void>,
) => {
  const accepted = acceptUrl(url, deps.allowPrivateUrls)
  if (E.isLeft(accepted)) return accepted
  await admitUrl()
  const admitted = await admitEntry(deps, config, common)
  if (E.isLeft(admitted)) return admitted
  const crawlOptions = {
    depth: crawl?.depth ?? 0,
    maxPages: crawl?.maxPages ?? 10,
    sameDomainOnly: crawl?.sameDomainOnly ?? true,
  }
  return createSourcedEntry(deps, ctx, admitted.right, { ...common, url: accepted.right, crawl: crawlOptions })
}

/** A file: admitted by its content's type and size, stored, then an empty entry and the task that parses it. */
const fromFile = async (
  deps: NewEntryDeps,
  ctx: CommandContext,
  config: KbConfig,
  common: Common,
  file: UploadedFile,
  { titleFromDocument = false } = {},
) => {
  const stored = await admitFile(deps, config, common, file)
  if (E.isLeft(stored)) return stored
  const { storage } = stored.right
  return createSourcedEntry(deps, ctx, stored.right.admission, { ...common, storage, titleFromDocument })
}

/**
 * What every creation checks first, decided by `admit` from the configuration the request read
 * and what the read models and the folder's stream say now (the document count, the folder).
 */
const admitEntry = async (
  deps: Pick<KnowledgeDeps, 'store' | 'db'>,
  config: KbConfig,
  input: Pick<CreateEntryInput, 'workspaceId' | 'folderId' | 'chunkingOptions'>,
  file?: AdmissionRequest['file'],
): Promise<E.Either<DomainError, Admission>> => {
  const counts = {
    entries: await entryCount(deps.db, input.workspaceId),
    folderExists: !input.folderId || (await folderExists(deps.store, input.workspaceId, input.folderId)),
  }
  return admit(config, counts, { folderId: input.folderId, chunkingOptions: input.chunkingOptions, file })
}

/** Text: admitted, chunked and embedded now, and written as the entry's first version. */
const createTextEntry = async (
  deps: KnowledgeDeps,
  ctx: CommandContext,
  config: KbConfig,
  input: CreateEntryInput,
): Result<{ id: string }> => {
  const admitted = await admitEntry(deps, config, input)
  if (E.isLeft(admitted)) return admitted
  const { chunking, embed } = admitted.right
  const prepared = await prepareContent(deps, input.title, [{ text: input.content }], chunking, embed, {
    given: input.embedding,
  })
  if (E.isLeft(prepared)) return prepared
  const id = randomUUID()
  const { chunkingOptions: _, embedding: __, ...fields } = input
  const done = await entries.on(deps.store, id).handle(
    {
      type: 'CreateEntry',
      data: {
        ...fields,
        ...prepared.right,
        entryId: id,
        source: storedSource(input.source),
        chunking,
        embed,
        createdBy: actorIdOf(ctx),
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
  return E.right({ id, position })
}
