// Filters on what a team says of its entries: conditions on metadata keys (equal to, one of, not, greater or less
// than, present), and on when an entry was created or last changed. Each is one condition of a search's scope
// (./port.ts's Scope) on the rows' entry, read where the entry's metadata and times are kept, so every leg of a search
// (text, vector, the entry-level text) applies the same filter inside its own scan. Values are bound, never spliced.

export type Scalar = string | number | boolean

/** A condition of a scope: SQL with a `?` for each value that follows it. */
type Condition = [sql: string, ...values: unknown[]]

/** A condition on one metadata key: every operator it gives must hold. */
export interface MetadataCondition {
  eq?: Scalar
  in?: Scalar[]
  not?: Scalar
  gt?: string | number
  gte?: string | number
  lt?: string | number
  lte?: string | number
  exists?: boolean
}

export const OPERATORS = ['eq', 'in', 'not', 'gt', 'gte', 'lt', 'lte', 'exists'] as const

/** A span of time (ISO 8601), each bound that is given holding. */
export interface TimeRange {
  gt?: string
  gte?: string
  lt?: string
  lte?: string
}

const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

/**
 * Metadata whose key holds one of the values, or is a list holding one: containment of either object, which the
 * metadata's GIN index answers.
 */
const holding = (key: string, values: Scalar[]): Condition => {
  const objects = values.flatMap((v) => [JSON.stringify({ [key]: v }), JSON.stringify({ [key]: [v] })])
  return [`(${objects.map(() => 'm.metadata @> ?::jsonb').join(' OR ')})`, ...objects]
}

/**
 * One key's condition as SQL on an entry's metadata (`m.metadata`). A comparison holds only for a value of its own
 * type: a number against numbers, a string (an ISO date, a version) against strings, byte by byte.
 */
const keyConditions = (key: string, c: MetadataCondition): Condition[] => {
  const out: Condition[] = []
  if (c.eq !== undefined) out.push(holding(key, [c.eq]))
  if (c.in !== undefined) out.push(holding(key, c.in))
  if (c.not !== undefined) {
    const [sql, ...values] = holding(key, [c.not])
    out.push([`NOT ${sql}`, ...values])
  }
  for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
    const value = c[op]
    if (value === undefined) continue
    const sign = COMPARISONS[op]
    if (typeof value === 'number')
      out.push([
        `(jsonb_typeof(m.metadata -> ?) = 'number' AND m.metadata -> ? ${sign} ?::jsonb)`,
        key,
        key,
        JSON.stringify(value),
      ])
    else
      out.push([
        `(jsonb_typeof(m.metadata -> ?) = 'string' AND (m.metadata ->> ?) COLLATE "C" ${sign} ?::text COLLATE "C")`,
        key,
        key,
        value,
      ])
  }
  if (c.exists !== undefined) out.push([`${c.exists ? '' : 'NOT '}jsonb_exists(m.metadata, ?)`, key])
  return out
}

/**
 * The metadata conditions as one condition of a scope: the row's entry has metadata meeting them all, as it is
 * (kb_chunk_entries) or, for a search of the past, as it was (`then`, on the table's history).
 */
export const metadataScope = (
  workspaceId: string,
  conditions: Record<string, MetadataCondition> | undefined,
  then?: string,
): Condition[] => {
  const parts = Object.entries(conditions ?? {}).flatMap(([key, c]) => keyConditions(key, c))
  if (parts.length === 0) return []
  const from = then ? `kb_chunk_entries_history m WHERE ${then} AND` : 'kb_chunk_entries m WHERE'
  return [
    [
      `entry_id IN (SELECT m.entry_id FROM ${from} m.workspace_id = ?${parts.map(([sql]) => ` AND ${sql}`).join('')})`,
      workspaceId,
      ...parts.flatMap(([, ...values]) => values),
    ],
  ]
}

/**
 * Bounds on the times of what the rows belong to (columns of its table: an entry's, a page's) as one condition of a
 * scope; `from` is where those are read, ending in WHERE or AND (a table as it is, or its history at a moment), and
 * `key` the rows' column naming them.
 */
export const timeScope = (
  workspaceId: string,
  ranges: Record<'created_at' | 'updated_at', TimeRange | undefined>,
  from: string,
  key = 'entry_id',
): Condition[] => {
  const bounds = Object.entries(ranges).flatMap(([column, range]) =>
    Object.entries(range ?? {}).map(([op, time]) => [
      `${column} ${COMPARISONS[op as keyof typeof COMPARISONS]} ?::timestamptz`,
      time,
    ]),
  )
  if (bounds.length === 0) return []
  return [
    [
      `${key} IN (SELECT id FROM ${from} workspace_id = ?${bounds.map(([sql]) => ` AND ${sql}`).join('')})`,
      workspaceId,
      ...bounds.map(([, time]) => time),
    ],
  ]
}
