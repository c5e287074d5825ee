import bourne from '@hapi/bourne'
import type { Context } from 'koa'
import getRawBody from 'raw-body'
import { ApiError } from './errors'

// Room for the largest body, 500,000 characters of content, even written as JSON escapes
// (\uXXXX, twice for a character beyond the BMP): 6 MB.
export const JSON_LIMIT = '7mb'

const WITH_BODY = new Set(['POST', 'PUT', 'PATCH'])
/** `reason`: what the JSON parser found wrong, where it found it. */
const notJson = (reason = 'must be a JSON object') =>
  new ApiError('VALIDATION_ERROR', 'the request body is not valid JSON', [`(body): ${reason}`])

/**
 * Reads a JSON body into `ctx.request.body`, once the route is known and its caller
 * authenticated: nobody makes the service read and parse megabytes before that. The bytes must be
 * UTF-8 (a body with invalid bytes is refused, never stored with replacement characters), and an
 * object or an array; `__proto__` keys are refused. A body in another media type is left unread
 * (the route refuses it).
 */
export const readJson = async (ctx: Context, limit = JSON_LIMIT) => {
  const request = ctx.request as Context['request'] & { body?: unknown }
  if (!WITH_BODY.has(ctx.method) || !ctx.request.is('json', '+json')) return
  const encoding = ctx.get('content-encoding') || 'identity'
  if (encoding !== 'identity') {
    throw new ApiError('VALIDATION_ERROR', 'the request body is not readable', [
      `(body): Content-Encoding ${encoding} is not accepted; send it uncompressed`,
    ])
  }
  const length = ctx.get('content-length')
  // Over the limit: raw-body's error says 413 and the limit, which the error middleware answers.
  const bytes = await getRawBody(ctx.req, { limit, ...(length ? { length } : {}) })
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'the request body is not valid UTF-8', [
      '(body): holds bytes that are not UTF-8',
    ])
  }
  if (!text.trim()) return void (request.body = {})
  let body: unknown
  try {
    body = bourne.parse(text, { protoAction: 'error' })
  } catch (error) {
    throw notJson((error as Error).message)
  }
  // Valid JSON, but a string, a number, true, false or null: no request takes one.
  if (typeof body !== 'object' || body === null) throw notJson()
  request.body = body as typeof request.body
}
