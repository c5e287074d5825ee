import fs from 'node:fs/promises'
import * as E from 'fp-ts/Either'
import type { Context } from 'koa'
import { koaBody } from 'koa-body'
import { takeHit } from '../adapters/rateLimit'
import { parseContentType } from '../adapters/contentType'
import { otherThanUtf8, sniffType, textEncoding } from '../ingestion/sniff'
import type { StorageInfo } from '../domain/entry'
import { type DomainError, fail } from '../domain/shared'
import { readKbConfig } from '../projections/knowledge'
import type { Deps } from './deps'
import { ApiError } from './errors'

/** Uploads per minute per workspace: url and file creations, and the deprecated upload endpoints. */
export const UPLOADS_PER_MINUTE = 20

/**
 * Counts an upload against its workspace's limit, or answers 429 with Retry-After. Counted before
 * the body is read; if the request is then refused, the route gives the slot back (`refund`).
 */
export const takeUploadSlot = async (deps: Deps, ctx: Context, workspaceId: string) => {
  const verdict = await takeHit(deps.db, `uploads:${workspaceId}`, UPLOADS_PER_MINUTE, 60)
  if (!verdict.allowed) {
    throw new ApiError(
      'RATE_LIMITED',
      `at most ${UPLOADS_PER_MINUTE} uploads a minute per workspace; retry in ${verdict.retryAfterSeconds} s`,
      undefined,
      {
        'Retry-After': String(verdict.retryAfterSeconds),
      },
    )
  }
  ctx.state.refund = verdict.release
}

export interface Upload {
  bytes: Buffer
  fileName: string
  /** The charset of the file part's Content-Type: how to read a text file's bytes, never its type. */
  charset?: string
}

/** A title from the file name (without extension), else from the content's first line. */
export const titleOf = (fileName: string, bytes: Buffer) => {
  const fromName = fileName
    .replace(/\.[^.]*$/, '')
    .replace(/[_-]+/g, ' ')
    .trim()
  if (fromName && fromName !== 'upload') return fromName.slice(0, 500)
  const firstLine = bytes
    .subarray(0, 2000)
    .toString('utf8')
    .split('\n')
    .map((l) => l.replace(/^#+\s*/, '').trim())
    .find((l) => /\w/.test(l))
  return (firstLine ?? 'Untitled upload').slice(0, 500)
}

const first = (v: unknown) => (Array.isArray(v) ? v[0] : v)

/**
 * Reads a multipart form: its fields become the body the route's codec decodes (JSON-valued
 * fields such as metadata parsed), its one file part is kept in `ctx.state.upload`. The file is
 * capped at the workspace's maxFileSize while it streams: over it, 413 at once and the
 * connection is closed rather than read to the end.
 */
export const readMultipart = async (ctx: Context, deps: Deps, workspaceId: string, jsonFields: string[]) => {
  const { maxFileSize } = await readKbConfig(deps.db.pool, workspaceId)
  const parse = koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      maxFileSize,
      maxFiles: 1,
      maxFields: 40,
      maxFieldsSize: 2 * 1024 * 1024,
      allowEmptyFiles: true,
      minFileSize: 0,
    },
    onError: (error: Error & { httpCode?: number }) => {
      if (error.httpCode === 413 && /maxFileSize|maxTotalFileSize/.test(error.message)) {
        ctx.set('Connection', 'close')
        throw new ApiError('PAYLOAD_TOO_LARGE', `the file is over this workspace's limit of ${maxFileSize} bytes`)
      }
      throw new ApiError('VALIDATION_ERROR', 'the multipart form is not valid', [
        `(body): ${error.message.replace(/options\./g, '')}`,
      ])
    },
  })
  await parse(ctx, async () => {})
  const request = ctx.request as unknown as { body?: Record<string, unknown>; files?: Record<string, unknown> }
  const body: Record<string, unknown> = {}
  const problems: string[] = []
  for (const [key, raw] of Object.entries(request.body ?? {})) {
    const value = first(raw)
    // Formidable reads a part without a Content-Type header as a text field, whatever its filename.
    if (key === 'file') {
      problems.push(
        'file: the part named file has no Content-Type header, so it reads as a text field; send it as a file part (any Content-Type: the content decides the type)',
      )
      continue
    }
    if (jsonFields.includes(key) && typeof value === 'string') {
      try {
        body[key] = JSON.parse(value)
      } catch {
        problems.push(`${key}: must be a JSON object`)
      }
    } else if (value === 'true' || value === 'false') body[key] = value === 'true'
    else body[key] = value
  }
  const files = Object.values(request.files ?? {}).flatMap((f) => (Array.isArray(f) ? f : [f])) as {
    filepath: string
    originalFilename?: string | null
  }[]
  try {
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'the request is not valid', problems)
    const file = (request.files ?? {}).file
    if (file) {
      const part = first(file) as { filepath: string; originalFilename?: string | null; mimetype?: string | null }
      const { charset } = parseContentType(part.mimetype ?? '')
      ctx.state.upload = {
        bytes: await fs.readFile(part.filepath),
        fileName: part.originalFilename ?? '',
        ...(charset ? { charset } : {}),
      } satisfies Upload
    }
  } finally {
    // Formidable's temporary files never outlive the request.
    await Promise.all(files.map((f) => fs.rm(f.filepath, { force: true })))
  }
  request.body = body
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
 * Checks an uploaded file by its content against the workspace's allowed types, then stores it
 * by hash. Refusals list the allowed types.
 */
export const storeUpload = async (
  deps: Deps,
  workspaceId: string,
  upload: Upload,
): Promise<E.Either<DomainError, StorageInfo>> => {
  const config = await readKbConfig(deps.db.pool, workspaceId)
  const fileName = cleanFileName(upload.fileName)
  const allowed = [`allowed types: ${config.allowedFileTypes.join(', ')}`]
  const sniffed = await sniffType(upload.bytes, fileName, upload.charset)
  if (!sniffed.ok)
    return fail('VALIDATION_ERROR', `file refused: ${sniffed.reason}`, [`file: ${sniffed.reason}`, ...allowed])
  // Markdown is plain text too: a workspace that takes plain text takes it as such.
  const mimeType =
    sniffed.mimeType === 'text/markdown' &&
    !config.allowedFileTypes.includes('text/markdown') &&
    config.allowedFileTypes.includes('text/plain')
      ? 'text/plain'
      : sniffed.mimeType
  if (!config.allowedFileTypes.includes(mimeType)) {
    return fail('VALIDATION_ERROR', `file type not allowed: ${mimeType}`, [
      `file: the content is ${mimeType}, which this workspace does not allow`,
      ...allowed,
    ])
  }
  if (upload.bytes.length > config.maxFileSize)
    return fail('VALIDATION_ERROR', 'the file is too large', [`file: over the limit of ${config.maxFileSize} bytes`])
  const blob = await deps.blobs.put(upload.bytes)
  // The charset a text is read in, when not UTF-8, is kept for its parser.
  const encoding = textEncoding(upload.bytes, upload.charset)
  const charset = mimeType.startsWith('text/') && encoding === upload.charset ? otherThanUtf8(encoding) : undefined
  return E.right({ blob, fileName, mimeType, size: upload.bytes.length, ...(charset ? { charset } : {}) })
}
