import type { Context } from 'koa'
import { koaBody } from 'koa-body'

// Room for the largest body, 500,000 characters of content, even written as JSON escapes
// (\uXXXX, twice for a character beyond the BMP): 6 MB.
export const JSON_LIMIT = '7mb'

const parsers = new Map<string, ReturnType<typeof koaBody>>()

/**
 * Reads a JSON body into `ctx.request.body`, once the route is known and its caller
 * authenticated: nobody makes the service read and parse megabytes before that. A body in another
 * media type is left unread (the route refuses it).
 */
export const readJson = async (ctx: Context, limit = JSON_LIMIT) => {
  let parse = parsers.get(limit)
  if (!parse) parsers.set(limit, (parse = koaBody({ json: true, jsonStrict: true, jsonLimit: limit, multipart: false, urlencoded: false, text: false })))
  await parse(ctx, async () => {})
}
