import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { type MetadataCondition, OPERATORS, type TimeRange } from '../../adapters/textIndex/filters'
import * as c from '../codecs'

// A search's `filter`: conditions on metadata keys and on entries' times, as the endpoint, kb_search and the
// console's retrieval testing take them, checked here so a mistake names its key and operator.

/** Keys a filter may name at most. */
const MAX_KEYS = 20
/** Values an `in` lists at most. */
const MAX_VALUES = 100

const comparable = c.documented(
  new t.Type<string | number, string | number, unknown>(
    'a number, or a string of at most 100 characters (a date such as 2026-01-31, a version)',
    (u): u is string | number => typeof u === 'string' || typeof u === 'number',
    (u, ctx) =>
      (typeof u === 'number' && Number.isFinite(u)) || (typeof u === 'string' && c.characters(u) <= 100)
        ? t.success(u)
        : t.failure(u, ctx),
    t.identity,
  ),
  { anyOf: [{ type: 'number' }, { type: 'string', maxLength: 100 }] },
)

const OPERAND: Record<(typeof OPERATORS)[number], t.Mixed> = {
  eq: c.scalar,
  in: t.refinement(
    t.array(c.scalar),
    (a) => a.length >= 1 && a.length <= MAX_VALUES,
    `a list of 1-${MAX_VALUES} values, each a string, a number, true or false`,
  ),
  not: c.scalar,
  gt: comparable,
  gte: comparable,
  lt: comparable,
  lte: comparable,
  exists: t.boolean,
}

const conditionSchema = {
  type: 'object',
  minProperties: 1,
  additionalProperties: false,
  properties: {
    eq: { description: 'equal to (a list holding it, for a key whose value is a list)' },
    in: { type: 'array', maxItems: MAX_VALUES, description: 'equal to one of these' },
    not: { description: 'not equal to (absent counts as not equal)' },
    gt: { description: 'greater than: a number against numbers, a string (an ISO date) against strings' },
    gte: { description: 'greater than or equal to' },
    lt: { description: 'less than' },
    lte: { description: 'less than or equal to' },
    exists: { type: 'boolean', description: 'the key is present (true) or absent (false)' },
  },
}

/** Conditions on metadata keys: `{ "<key>": { "<operator>": <value>, ... } }`, every one to hold. */
export const MetadataFilter = c.documented(
  new t.Type<Record<string, MetadataCondition>, Record<string, MetadataCondition>, unknown>(
    `a JSON object of at most ${MAX_KEYS} metadata keys, each naming its conditions`,
    (u): u is Record<string, MetadataCondition> => typeof u === 'object' && u !== null,
    (u, ctx) => {
      if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, ctx)
      const keys = Object.entries(u)
      if (keys.length > MAX_KEYS) return t.failure(u, ctx, `names ${keys.length} keys; at most ${MAX_KEYS}`)
      const errors: t.Errors = []
      const kept: Record<string, MetadataCondition> = {}
      for (const [key, condition] of keys) {
        const at = [...ctx, { key, type: c.scalar, actual: condition }]
        if (!new RegExp(c.METADATA_KEY).test(key)) {
          errors.push({ value: key, context: at, message: 'is not a metadata key: 1-100 letters, digits, _, . or -' })
          continue
        }
        if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) {
          errors.push({
            value: condition,
            context: at,
            message: `must be an object of operators (${OPERATORS.join(', ')}), such as { "eq": "draft" }`,
          })
          continue
        }
        const ops = Object.entries(condition)
        if (ops.length === 0)
          errors.push({ value: condition, context: at, message: `names no operator: use ${OPERATORS.join(', ')}` })
        const checked: Record<string, unknown> = {}
        for (const [op, value] of ops) {
          const operand = OPERAND[op as keyof typeof OPERAND]
          const where = [...at, { key: op, type: operand ?? c.scalar, actual: value }]
          if (!operand) {
            errors.push({ value: op, context: where, message: `is not an operator: use ${OPERATORS.join(', ')}` })
            continue
          }
          const result = operand.validate(value, where)
          if (E.isLeft(result)) errors.push({ value, context: where, message: `${key} ${op}: must be ${operand.name}` })
          else checked[op] = result.right
        }
        kept[key] = checked as MetadataCondition
      }
      return errors.length > 0 ? t.failures(errors) : t.success(kept)
    },
    t.identity,
  ),
  {
    type: 'object',
    maxProperties: MAX_KEYS,
    propertyNames: { pattern: c.METADATA_KEY },
    additionalProperties: conditionSchema,
  },
)

/** Bounds on a time (ISO 8601), each given one holding. */
const Range = c.exact(
  { gt: c.isoTime, gte: c.isoTime, lt: c.isoTime, lte: c.isoTime },
  'a JSON object of gt, gte, lt, lte',
)

export const SearchFilter = c.described(
  c.exact({
    metadata: MetadataFilter,
    createdAt: c.described(Range, 'When the entry was created: bounds gt, gte, lt, lte, each an ISO 8601 time'),
    updatedAt: c.described(Range, 'When the entry last changed: bounds gt, gte, lt, lte, each an ISO 8601 time'),
  }),
  'Conditions every result meets: on metadata keys, and on when the entry was created or last changed',
)

export const PageFilter = c.described(
  c.exact({
    createdAt: c.described(Range, 'When the page was created: bounds gt, gte, lt, lte, each an ISO 8601 time'),
    updatedAt: c.described(Range, 'When the page last changed: bounds gt, gte, lt, lte, each an ISO 8601 time'),
  }),
  'Conditions every page found meets: when it was created or last changed',
)

const isoRange = (range: t.TypeOf<typeof Range> | undefined): TimeRange | undefined =>
  range && Object.fromEntries(Object.entries(range).map(([op, time]) => [op, time.toISOString()]))

/** A request's `filter` as the search reads it (times as ISO strings, so a receipt records them as asked). */
export const filterOf = (filter: Partial<t.TypeOf<typeof SearchFilter>> | undefined) => ({
  ...(filter?.metadata && Object.keys(filter.metadata).length > 0 ? { metadata: filter.metadata } : {}),
  ...(filter?.createdAt && Object.keys(filter.createdAt).length > 0 ? { createdAt: isoRange(filter.createdAt) } : {}),
  ...(filter?.updatedAt && Object.keys(filter.updatedAt).length > 0 ? { updatedAt: isoRange(filter.updatedAt) } : {}),
})

/** What a tool's `filter` argument takes, told to the agent. */
export const FILTER_NOTE =
  'Only entries whose metadata and times meet these conditions, every one: ' +
  '{ "metadata": { "<key>": { "eq" | "in" | "not" | "gt" | "gte" | "lt" | "lte" | "exists": value } }, ' +
  '"createdAt" | "updatedAt": { "gte": "2026-01-01T00:00:00Z", "lt": ... } }'
export const PAGE_FILTER_NOTE =
  'Only pages created or last changed within bounds: { "createdAt" | "updatedAt": { "gte": "2026-01-01T00:00:00Z" } }'

/** What a search of entries asks besides its query: mode, limit, minimum score and filters (a search, a comparison). */
export const searchFields = {
  mode: c.Mode,
  limit: c.integer(1, 50),
  minScore: c.number(0, 1),
  source: c.FilterSource,
  category: c.string(1, 200),
  tag: c.string(1, 100),
  folderId: c.id,
  filter: SearchFilter,
}
