import * as E from 'fp-ts/Either'
import type { BlobStore } from '../../adapters/blobs'
import type { CrawlOptions, StorageInfo } from '../../domain/knowledge/entry'
import { type DomainError, fail } from '../../domain/shared'
import { otherThanUtf8, sniffType, textEncoding } from '../../ingestion/sniff'
import type { CommandContext } from '../handle'
import { acceptUrl } from '../urls'
import { createSourcedEntry } from './ingestion'
import { type CreateEntryInput, type KnowledgeDeps, admitEntry, createTextEntry } from './knowledge'
import { type Admission, allowedTypes } from '../../domain/knowledge/admission'
import type { KbConfig } from '../../domain/knowledge/kbConfig'

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

/** The first `n` characters (code points: an emoji is never cut in two). */
export const firstChars = (s: string, n: number) => (s.length <= n ? s : [...s].slice(0, n).join(''))

/** A title from the file name (without extension), else from the content's first line. */
export const titleOf = (fileName: string, bytes: Buffer) => {
  const fromName = fileName
    .replace(/\.[^.]*$/, '')
    .replace(/[_-]+/g, ' ')
    .trim()
  if (fromName && fromName !== 'upload') return firstChars(fromName, 500)
  const firstLine = bytes
    .subarray(0, 2000)
    .toString('utf8')
    .split('\n')
    .map((l) => l.replace(/^#+\s*/, '').trim())
    .find((l) => /\w/.test(l))
  return firstChars(firstLine ?? 'Untitled upload', 500)
}

/** The client's file name as metadata only: no directories, no control characters, bounded. */
export const cleanFileName = (name: string) => {
  const base = name.split(/[\\/]/).pop() ?? ''
  // Cut by code points: a cut between the halves of an emoji leaves a string JSON cannot store.
  const clean = [
    ...base
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .replace(/^\.+/, '')
      .trim(),
  ]
    .slice(0, 255)
    .join('')
  return clean || 'upload'
}

/**
 * Admits an entry made from an uploaded file: its type read from its content, then the workspace's
 * limits (`admitEntry`); only an admitted file is stored, by hash. Refusals list the allowed types.
 */
export const admitFile = async (
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
 * Creates an entry from what a client sent: text is chunked now; a URL or a file makes an empty
 * entry and the task that fills it. Answers the entry's id (and its task's, when it has one).
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
  // What the source needs first, then the title (a file's defaults to its name).
  if (request.source === 'url' && url === undefined) return invalid('url: is required when source is url')
  if (request.source === 'file' && !file)
    return invalid('file: is required when source is file (a multipart/form-data part named file)')
  const title =
    asked?.trim() || (request.source === 'file' && file ? titleOf(cleanFileName(file.fileName), file.bytes) : undefined)
  if (!title) return invalid(`title: is required when source is ${request.source}`)
  if (request.source === 'url' && url !== undefined) {
    const accepted = acceptUrl(url, deps.allowPrivateUrls)
    if (E.isLeft(accepted)) return accepted
    await admitUrl()
    const admitted = await admitEntry(deps, config, request)
    if (E.isLeft(admitted)) return admitted
    const crawlOptions = {
      depth: crawl?.depth ?? 0,
      maxPages: crawl?.maxPages ?? 10,
      sameDomainOnly: crawl?.sameDomainOnly ?? true,
    }
    return createSourcedEntry(deps, ctx, admitted.right, { ...common, title, url: accepted.right, crawl: crawlOptions })
  }
  if (request.source === 'file' && file) {
    const stored = await admitFile(deps, config, request, file)
    if (E.isLeft(stored)) return stored
    return createSourcedEntry(deps, ctx, stored.right.admission, { ...common, title, storage: stored.right.storage })
  }
  if (content === undefined || content.trim() === '')
    return invalid(`content: is required when source is ${request.source}`)
  return createTextEntry(deps, ctx, config, { ...common, title, content })
}
