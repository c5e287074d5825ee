import fs from 'node:fs/promises'
import type { Context } from 'koa'
import { koaBody } from 'koa-body'
import { takeHit } from '../../adapters/rateLimit'
import { parseContentType } from '../../adapters/contentType'
import { type UploadedFile, loadKbConfig } from '../../commands/knowledge'
import type { KbConfig } from '../../domain/knowledge'
import { workspaceIdOf } from '../auth'
import type { Deps } from '../deps'
import { ApiError } from '../errors'
import type { RouteRequest } from '../route'

/**
 * The workspace's knowledge-base configuration as this request sees it: folded from its stream
 * the first time something asks, then the same for the rest of the request (the multipart reader's
 * size cap and the admission of the entry read one configuration).
 */
export const requestConfig = (ctx: Context, deps: Pick<Deps, 'store'>, workspaceId: string): Promise<KbConfig> => {
  ctx.state.kbConfig ??= loadKbConfig(deps.store, workspaceId)
  return ctx.state.kbConfig as Promise<KbConfig>
}

/**
 * What a route that creates entries gives its handler beyond the common input (its `extras`): the
 * file of a multipart body, as `readMultipart` kept it; a way to count the request against the
 * workspace's uploads a minute (once; given back if the request is refused); and the workspace's
 * knowledge-base configuration, read once per request whoever asks.
 */
export const uploadExtras = ({ ctx, identity }: RouteRequest, deps: Deps) => ({
  upload: ctx.state.upload as UploadedFile | undefined,
  countUpload: async () => {
    if (!ctx.state.refund) await takeUploadSlot(deps, ctx, workspaceIdOf(identity))
  },
  workspaceConfig: () => requestConfig(ctx, deps, workspaceIdOf(identity)),
})

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

const first = (v: unknown) => (Array.isArray(v) ? v[0] : v)

/**
 * Reads a multipart form: its fields become the body the route's codec decodes (JSON-valued
 * fields such as metadata parsed), its one file part is kept in `ctx.state.upload` (an UploadedFile). The file is
 * capped at the workspace's maxFileSize while it streams: over it, 413 at once and the
 * connection is closed rather than read to the end.
 */
export const readMultipart = async (ctx: Context, deps: Deps, workspaceId: string, jsonFields: string[]) => {
  const { maxFileSize } = await requestConfig(ctx, deps, workspaceId)
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
        'file: the part named file has no Content-Type header, so it reads as a text field; send it as a file part ' +
          '(any Content-Type: the content decides the type)',
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
      } satisfies UploadedFile
    }
  } finally {
    // Formidable's temporary files never outlive the request.
    await Promise.all(files.map((f) => fs.rm(f.filepath, { force: true })))
  }
  request.body = body
}
