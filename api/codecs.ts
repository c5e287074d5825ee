import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { AsOfRequest } from '../queries/asOf'
import { SearchMode } from '../domain/shared'

// Codecs at the edge. Their names read as the rest of "must be ...", so a failed decode
// explains itself in VALIDATION_ERROR details; each also carries its JSON Schema for the OpenAPI
// document (api/openapi.ts).

type Schema = Record<string, unknown>
/** The JSON Schema of each codec made here (of a refinement: what it adds to its base type's). */
export const jsonSchemas = new WeakMap<t.Mixed, Schema>()
export const documented = <C extends t.Mixed>(codec: C, schema: Schema): C => {
  jsonSchemas.set(codec, { ...schema, description: codec.name })
  return codec
}

/** Characters as the API counts them: code points (an emoji is one, not two UTF-16 units). */
export const characters = (s: string) => s.length - (s.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0)

interface TextRules {
  schema?: Schema
  allowed?: (s: string) => boolean
  /** The form the service keeps. */
  normal?: (s: string) => string
}

const bounded = (
  name: string,
  min: number,
  max: number,
  { schema = {}, allowed = () => true, normal = (s) => s }: TextRules = {},
) =>
  documented(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string',
      (u, c) => {
        const s = typeof u === 'string' ? normal(u) : undefined
        return s !== undefined && s.trim().length >= min && (s.length <= max || characters(s) <= max) && allowed(s)
          ? t.success(s)
          : t.failure(u, c)
      },
      t.identity,
    ),
    { type: 'string', ...(min > 0 ? { minLength: min } : {}), maxLength: max, ...schema },
  )

export const string = (min: number, max: number) =>
  bounded(min > 0 ? `a string of ${min}-${max} characters` : `a string of at most ${max} characters`, min, max)

/**
 * A name shown on one line (a page title, a folder or collection name): no line breaks, tabs or
 * other control characters; kept in Unicode's composed form (NFC), so "é" typed either way is one name.
 */
export const line = (min: number, max: number) =>
  bounded(`one line of ${min}-${max} characters, without control characters`, min, max, {
    schema: { pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]*$' },
    allowed: (s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s),
    normal: (s) => s.normalize('NFC'),
  })

export const email = documented(
  new t.Type<string, string, unknown>(
    'an email address',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      typeof u === 'string' && u.length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(u) ? t.success(u) : t.failure(u, c),
    t.identity,
  ),
  { type: 'string', format: 'email', maxLength: 254 },
)

/** A string matching a pattern (anchored), described as `name`, with the pattern in its JSON Schema. */
const matching = (name: string, pattern: string) =>
  documented(
    new t.Type<string, string, unknown>(
      name,
      (u): u is string => typeof u === 'string',
      (u, c) => (typeof u === 'string' && new RegExp(pattern).test(u) ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'string', pattern },
  )

/** An ISO 8601 time with a date and a time of day (`2026-11-25T10:00:00Z`), as a Date. */
export const isoTime = documented(
  new t.Type<Date, string, unknown>(
    'an ISO 8601 date and time, such as 2026-11-25T10:00:00Z',
    (u): u is Date => u instanceof Date,
    (u, c) => {
      if (typeof u !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(u))
        return t.failure(u, c)
      const d = new Date(u)
      return Number.isNaN(d.getTime()) ? t.failure(u, c) : t.success(d)
    },
    (d) => d.toISOString(),
  ),
  { type: 'string', format: 'date-time' },
)

/** A moment of the log as a request names it: `pos:<n>` (a log position), or an ISO 8601 time. */
export const asOf = documented(
  new t.Type<AsOfRequest, string, unknown>(
    'a log position pos:<n>, or an ISO 8601 date and time such as 2026-11-25T10:00:00Z',
    (u): u is AsOfRequest => typeof u === 'object' && u !== null,
    (u, c) => {
      const position = typeof u === 'string' ? /^pos:(\d{1,15})$/.exec(u) : null
      if (position) return t.success({ position: Number(position[1]) })
      const time = isoTime.validate(u, c)
      return time._tag === 'Right' ? t.success({ time: time.right }) : t.failure(u, c)
    },
    (a) => ('position' in a ? `pos:${a.position}` : a.time.toISOString()),
  ),
  { type: 'string', description: 'pos:<n> (a log position) or an ISO 8601 date and time' },
)

/** An event type a subscription names (`EntryCreated`), or `*` for all. */
export const eventType = matching(
  'an event type name (letters and digits, at most 100), or *',
  '^(\\*|[A-Za-z][A-Za-z0-9]{0,99})$',
)

/** A webhook signing secret as the Standard Webhooks specification writes them. */
export const webhookSecret = matching(
  'a secret of whsec_ and the base64 of 18 to 64 bytes',
  '^whsec_(?:[A-Za-z0-9+/]{4}){6,22}(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
)

export const slug = documented(
  new t.Type<string, string, unknown>(
    'a slug of lowercase letters, digits and dashes (1-60)',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      typeof u === 'string' && /^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$/.test(u) ? t.success(u) : t.failure(u, c),
    t.identity,
  ),
  { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$' },
)

/** An id as the service issues them (uuid); anything else cannot name a resource. */
export const id = documented(
  new t.Type<string, string, unknown>(
    'an id',
    (u): u is string => typeof u === 'string',
    (u, c) => (typeof u === 'string' && u.length > 0 && u.length <= 200 ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', minLength: 1, maxLength: 200 },
)

export const integer = (min: number, max: number) =>
  documented(
    new t.Type<number, number, unknown>(
      `an integer between ${min} and ${max}`,
      (u): u is number => typeof u === 'number',
      (u, c) => (typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'integer', minimum: min, maximum: max },
  )

/** An integer in a query string. */
export const intFromString = (min: number, max: number) =>
  documented(
    new t.Type<number, string, unknown>(
      `an integer between ${min} and ${max}`,
      (u): u is number => typeof u === 'number',
      (u, c) => {
        const n = typeof u === 'string' && /^-?\d{1,16}$/.test(u) ? Number(u) : NaN
        return Number.isInteger(n) && n >= min && n <= max ? t.success(n) : t.failure(u, c)
      },
      String,
    ),
    { type: 'integer', minimum: min, maximum: max },
  )

export const booleanFromString = documented(
  new t.Type<boolean, string, unknown>(
    'true or false',
    (u): u is boolean => typeof u === 'boolean',
    (u, c) => (u === 'true' ? t.success(true) : u === 'false' ? t.success(false) : t.failure(u, c)),
    String,
  ),
  { type: 'boolean' },
)

/** A JSON object with required and optional fields; unknown keys are dropped, never applied. */
export const object = <R extends t.Props, O extends t.Props = {}>(
  required: R,
  optional: O = {} as O,
  name = 'a JSON object',
) => t.exact(t.intersection([t.type(required), t.partial(optional)]), name)

export const hexColor = documented(
  new t.Type<string, string, unknown>(
    'a hex colour code (#rgb or #rrggbb)',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      typeof u === 'string' && /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(u) ? t.success(u) : t.failure(u, c),
    t.identity,
  ),
  { type: 'string', pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$' },
)

export const iconName = documented(
  new t.Type<string, string, unknown>(
    'an icon name (letters, digits, - and _; at most 50)',
    (u): u is string => typeof u === 'string',
    (u, c) => (typeof u === 'string' && /^[A-Za-z0-9_-]{1,50}$/.test(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  ),
  { type: 'string', pattern: '^[A-Za-z0-9_-]{1,50}$' },
)

export const number = (min: number, max: number) =>
  documented(
    new t.Type<number, number, unknown>(
      `a number between ${min} and ${max}`,
      (u): u is number => typeof u === 'number',
      (u, c) => (typeof u === 'number' && Number.isFinite(u) && u >= min && u <= max ? t.success(u) : t.failure(u, c)),
      t.identity,
    ),
    { type: 'number', minimum: min, maximum: max },
  )

/** A map of customer ids: string keys (1-100) to string values (at most 500), at most 50 pairs. */
export const stringMap = documented(
  new t.Type<Record<string, string>, Record<string, string>, unknown>(
    'an object of string values (at most 50 keys of 1-100 characters, values of at most 500)',
    (u): u is Record<string, string> => typeof u === 'object' && u !== null,
    (u, c) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c)
      const entries = Object.entries(u)
      const ok =
        entries.length <= 50 &&
        entries.every(([k, v]) => k.length >= 1 && k.length <= 100 && typeof v === 'string' && v.length <= 500)
      return ok ? t.success(Object.fromEntries(entries) as Record<string, string>) : t.failure(u, c)
    },
    t.identity,
  ),
  {
    type: 'object',
    maxProperties: 50,
    propertyNames: { minLength: 1, maxLength: 100 },
    additionalProperties: { type: 'string', maxLength: 500 },
  },
)

/** An array of at most `max` items. */
export const arrayOf = <C extends t.Mixed>(item: C, max: number) =>
  documented(
    t.refinement(t.array(item), (a) => a.length <= max, `an array of at most ${max} items`),
    { maxItems: max },
  )

/** A JSON object whose unknown keys are dropped, never applied. */
export const exact = <P extends t.Props>(props: P, name = 'a JSON object') => t.exact(t.partial(props), name)

/**
 * The same codec with a description for its JSON Schema (an answer's field, explained to the agent that reads it).
 * A refinement that refuses nothing, so a shared codec (t.string) is described where it is used, not everywhere.
 */
export const described = <C extends t.Mixed>(codec: C, description: string): C => {
  const wrapped = t.refinement(codec, () => true, codec.name) as unknown as C
  jsonSchemas.set(wrapped, { description })
  return wrapped
}

/** A search mode. */
export const Mode = SearchMode
/** An entry's kind as it is stored (a filter on lists and searches). */
export const FilterSource = t.keyof({
  manual: null,
  document: null,
  webpage: null,
  faq: null,
  api_docs: null,
  transcript: null,
})

/** A metadata key of a team's own: what filters name, so letters, digits, _, . and - only. */
export const METADATA_KEY = '^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$'

const scalarSchema = [{ type: 'string', maxLength: 1000 }, { type: 'number' }, { type: 'boolean' }]

/** A value of metadata, or one a filter compares with: a string (at most 1000 characters), a number or a boolean. */
export const scalar = documented(
  new t.Type<string | number | boolean, string | number | boolean, unknown>(
    'a string of at most 1000 characters, a number, true or false',
    (u): u is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof u),
    (u, c) =>
      (typeof u === 'string' && characters(u) <= 1000) ||
      (typeof u === 'number' && Number.isFinite(u)) ||
      typeof u === 'boolean'
        ? t.success(u as string | number | boolean)
        : t.failure(u, c),
    t.identity,
  ),
  { anyOf: scalarSchema },
)

const metadataValue = documented(
  new t.Type<unknown, unknown, unknown>(
    'a string of at most 1000 characters, a number, true or false, or a list of at most 50 strings (1-200)',
    (_u): _u is unknown => true,
    (u, c) =>
      E.isRight(scalar.validate(u, c)) ||
      (Array.isArray(u) && u.length <= 50 && u.every((s) => typeof s === 'string' && s && characters(s) <= 200))
        ? t.success(u)
        : t.failure(u, c),
    t.identity,
  ),
  {
    anyOf: [...scalarSchema, { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 200 } }],
  },
)

/**
 * Metadata: the named fields (`known`, each checked by its codec) and keys of a team's own (METADATA_KEY), each
 * holding a string, a number, a boolean or a list of strings; at most 50 keys. `schema` is the named fields' JSON
 * Schema.
 */
export const metadata = <P extends t.Props>(known: P, schema: Record<string, unknown>) =>
  documented(
    new t.Type<t.TypeOf<t.PartialC<P>> & Record<string, unknown>, unknown, unknown>(
      'a JSON object of at most 50 keys',
      (u): u is t.TypeOf<t.PartialC<P>> & Record<string, unknown> => typeof u === 'object' && u !== null,
      (u, c) => {
        if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c)
        const entries = Object.entries(u)
        if (entries.length > 50) return t.failure(u, c, `has ${entries.length} keys; at most 50`)
        const kept: Record<string, unknown> = {}
        const errors: t.Errors = []
        for (const [key, value] of entries) {
          const codec: t.Mixed | undefined = Object.hasOwn(known, key)
            ? known[key]
            : new RegExp(METADATA_KEY).test(key)
              ? metadataValue
              : undefined
          const at = [...c, { key, type: codec ?? metadataValue, actual: value }]
          if (!codec) {
            errors.push({ value: key, context: at, message: 'is not a key: 1-100 letters, digits, _, . or -' })
            continue
          }
          const checked = codec.validate(value, at)
          if (E.isLeft(checked)) errors.push(...checked.left)
          else kept[key] = checked.right
        }
        return errors.length > 0 ? t.failures(errors) : t.success(kept as t.TypeOf<t.PartialC<P>>)
      },
      t.identity,
    ),
    {
      type: 'object',
      maxProperties: 50,
      properties: schema,
      propertyNames: { pattern: METADATA_KEY },
      additionalProperties: jsonSchemas.get(metadataValue),
    },
  )
