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
