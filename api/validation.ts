import * as E from 'fp-ts/Either'
import * as t from 'io-ts'

/** Union and intersection members (exact ones too) are indexed by position: not part of the field path. */
const positional = (type: t.Decoder<unknown, unknown>): boolean =>
  type instanceof t.UnionType ||
  type instanceof t.IntersectionType ||
  (type instanceof t.ExactType && positional(type.type))

/** Turns io-ts errors into `field: reason` lines, one per field. */
export const describeErrors = (errors: t.Errors, prefix = ''): string[] => {
  const lines = new Map<string, string>()
  for (const error of errors) {
    const keys: string[] = []
    error.context.forEach((entry, i) => {
      if (i === 0 || positional(error.context[i - 1].type)) return
      keys.push(entry.key)
    })
    const path = prefix + (keys.join('.') || '(body)')
    if (lines.has(path)) continue
    const reason = error.message ?? (error.value === undefined ? 'is required' : `must be ${expectedOf(error.context)}`)
    lines.set(path, reason)
  }
  return [...lines].map(([path, reason]) => `${path}: ${reason}`)
}

/** A set of allowed values (a keyof, or a union of literals), listed plainly. */
const oneOf = (values: unknown[]) => `one of: ${values.map(String).join(', ')}`

/** What the value at the end of a context must be; a union of literals anywhere on it is named as its values. */
const expectedOf = (context: t.Context) => {
  const union = [...context].reverse().find((c) => c.type instanceof t.UnionType)?.type as
    | t.UnionType<t.Mixed[]>
    | undefined
  if (union && union.types.every((m) => m instanceof t.LiteralType))
    return oneOf(union.types.map((m) => (m as t.LiteralType<string>).value))
  const expected = context[context.length - 1].type
  if (expected instanceof t.KeyofType) return oneOf(Object.keys(expected.keys))
  return readable(expected.name)
}

const readable = (name: string) =>
  name
    .replace(/^"(.*)"$/, 'the value "$1"')
    .replace(/^\{ (.*) \}$/, 'an object')
    .replace(/^(UnknownRecord|Exact<.*>|Partial<.*>)$/, 'a JSON object')
    .replace(/ \| undefined$/, '')

/** The property names a codec reads (through exact, partial, intersection and union codecs). */
export const propsOf = (codec: t.Mixed | undefined): string[] => {
  if (!codec) return []
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType) return Object.keys(codec.props)
  if (codec instanceof t.ExactType || codec instanceof t.RefinementType || codec instanceof t.ReadonlyType)
    return propsOf(codec.type)
  if (codec instanceof t.IntersectionType || codec instanceof t.UnionType)
    return (codec.types as t.Mixed[]).flatMap(propsOf)
  return []
}

export const decode = <A>(codec: t.Type<A, unknown, unknown> | undefined, value: unknown): E.Either<string[], A> => {
  if (!codec) return E.right(value as A)
  const result = codec.decode(value)
  return E.isLeft(result) ? E.left(describeErrors(result.left)) : E.right(result.right)
}

/** How deep a request's JSON may nest (metadata included); deeper is refused, not walked. */
const MAX_DEPTH = 32

/**
 * Strings no command can store, found anywhere in a request (keys too): Postgres text cannot hold
 * NUL, and JSON in Postgres refuses a lone UTF-16 surrogate (half of an emoji), which would fail
 * the event append of this request and of the others appended with it.
 */
export const inputProblems = (value: unknown, at: string, found: string[], depth = 0): string[] => {
  const check = (s: string, where: string) => {
    if (s.includes('\u0000')) found.push(`${where}: must not contain NUL characters`)
    if (/[\uD800-\uDFFF]/u.test(s)) found.push(`${where}: must not contain a lone UTF-16 surrogate (not valid Unicode)`)
  }
  if (typeof value === 'string') check(value, at)
  else if (value && typeof value === 'object') {
    if (depth >= MAX_DEPTH) found.push(`${at}: nested deeper than ${MAX_DEPTH} levels`)
    else if (Array.isArray(value)) value.forEach((v, i) => inputProblems(v, `${at}.${i}`, found, depth + 1))
    else {
      for (const [k, v] of Object.entries(value)) {
        const where = at ? `${at}.${k}` : k
        check(k, where)
        inputProblems(v, where, found, depth + 1)
      }
    }
  }
  return found
}
