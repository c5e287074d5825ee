import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as c from './codecs'
import { describeErrors } from './validation'

/** The codec of an answer's `data`: it is encoded by it, and the OpenAPI document describes it. */
export type AnswerCodec = t.Type<any, unknown, unknown>

/** The paths of `sent` that `kept` lacks (what encoding dropped). */
const lostPaths = (sent: unknown, kept: unknown, at = ''): string[] => {
  if (Array.isArray(sent))
    return sent.flatMap((v, i) => lostPaths(v, Array.isArray(kept) ? kept[i] : undefined, `${at}.${i}`))
  if (sent && typeof sent === 'object') {
    const other = (kept && typeof kept === 'object' ? kept : {}) as Record<string, unknown>
    return Object.entries(sent).flatMap(([k, v]) =>
      k in other ? lostPaths(v, other[k], `${at}.${k}`) : v === undefined ? [] : [`${at}.${k}`.slice(1)],
    )
  }
  return []
}

const json = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)))

/**
 * An answer as it leaves the service: encoded by its codec, so a field the codec does not declare
 * never does. Checked (the test suite sets it), an answer its codec does not describe, or one that
 * loses a field in the encoding, is an error that names the route and the fields.
 */
export const encodeAnswer = (codec: AnswerCodec, data: unknown, check: boolean, route: string) => {
  // Unchecked (in service), the encoded value goes to Koa, which serializes it once.
  if (!check) return codec.encode(data)
  const refuse = (problems: string[]) => {
    throw new Error(`${route} answered outside its declared shape: ${problems.slice(0, 10).join('; ')}`)
  }
  const decoded = codec.decode(json(data))
  if (E.isLeft(decoded)) refuse(describeErrors(decoded.left, 'data.'))
  const encoded = json(codec.encode(data))
  const lost = lostPaths(json(data), encoded)
  if (lost.length) refuse(lost.map((p) => `data.${p}: not declared by the answer's codec`))
  return encoded
}

// Pieces many answers share.

/** The pagination object of every list. */
export const Pagination = c.object({
  page: t.number,
  limit: t.number,
  total: t.number,
  totalPages: t.number,
  hasNext: t.boolean,
  hasPrev: t.boolean,
})

/** The moment a read was asked as of: its log position and time. */
export const AsOf = c.object({ position: t.number, time: t.string })

/** When and at which log position something was deleted. */
export const Deletion = c.object({ at: t.string, position: t.number })

/** Who wrote something: a person, an agent (its client, and the skill it followed), or the service. */
export const Author = t.union([
  c.object({ kind: t.literal('human'), userId: t.string }, { name: t.string }),
  c.object({ kind: t.literal('agent'), client: t.string }, { skill: t.string }),
  c.object({ kind: t.literal('system'), process: t.string }),
])

/** Any JSON object (metadata a client chose, an event's data). */
export const AnyObject = t.UnknownRecord
