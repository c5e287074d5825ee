import * as t from 'io-ts'

/** Union and intersection members (exact ones too) are indexed by position: not part of the field path. */
const positional = (type: t.Decoder<unknown, unknown>): boolean =>
  type instanceof t.UnionType || type instanceof t.IntersectionType || (type instanceof t.ExactType && positional(type.type))

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
    const expected = error.context[error.context.length - 1].type
    const reason = error.message ?? (error.value === undefined ? 'is required' : `must be ${readable(expected.name)}`)
    lines.set(path, reason)
  }
  return [...lines].map(([path, reason]) => `${path}: ${reason}`)
}

const readable = (name: string) =>
  name
    .replace(/^"(.*)"$/, 'the value "$1"')
    .replace(/^\{ (.*) \}$/, 'an object')
    .replace(/^(UnknownRecord|Exact<.*>|Partial<.*>)$/, 'a JSON object')
    .replace(/ \| undefined$/, '')
