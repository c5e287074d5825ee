import { errors } from '@elastic/elasticsearch'
import type { Scope } from './port'

/**
 * The shape of the indices: bump when the mapping below changes meaning. Each index is named with
 * it behind an alias, so a service that finds the alias on another version builds a new index from
 * the database and moves the alias to it.
 */
export const MAPPING_VERSION = 2

/** Columns never copied to a document: term statistics, vectors and the unsearched originals. */
export const NOT_COPIED = ['tf', 'title_tf', 'body_tf', 'embedding', 'content', 'metadata']

/** What searches and writes name: the alias of a table's index. */
export const aliasOf = (prefix: string, table: string) => `${prefix}${table}`

/** A concrete index of a table: its mapping version, and the moment it was built (a generation). */
export const indexNameOf = (prefix: string, table: string, generation: number) =>
  `${prefix}${table}-v${MAPPING_VERSION}-${generation}`

/** Whether a concrete index (behind the alias) has the current mapping. */
export const isCurrent = (prefix: string, table: string, index: string) =>
  index.startsWith(`${prefix}${table}-v${MAPPING_VERSION}-`)

export interface Column {
  name: string
  /** information_schema's data_type (`ARRAY` for an array). */
  type: string
}

/** A column's field: searched columns are English text (BM25); every other field says what it is. */
const fieldOf = (column: Column, text: boolean) => {
  if (text) return { type: 'text', analyzer: 'english' }
  switch (column.type) {
    case 'boolean':
      return { type: 'boolean' }
    case 'integer':
    case 'bigint':
    case 'smallint':
      return { type: 'long' }
    case 'real':
    case 'double precision':
    case 'numeric':
      return { type: 'double' }
    case 'timestamp with time zone':
    case 'timestamp without time zone':
      return { type: 'date' }
    default:
      // Text, and arrays of text: exact values, filtered on as terms.
      return { type: 'keyword' }
  }
}

/**
 * An index's settings and mapping, every field mapped from its table's columns. Nothing is guessed
 * from a document: a title or tag that looks like a date (`2024-06-01`) or a number stays a string,
 * and a field the mapping lacks is kept in the source, never mapped (no document is ever refused
 * for a guess an earlier one made).
 */
export const indexBody = (columns: Column[], textColumns: Set<string>, replicas: number) => ({
  settings: { number_of_replicas: replicas },
  mappings: {
    dynamic: false as const,
    date_detection: false,
    numeric_detection: false,
    properties: Object.fromEntries(
      columns.filter((c) => !NOT_COPIED.includes(c.name)).map((c) => [c.name, fieldOf(c, textColumns.has(c.name))]),
    ),
  },
})

type Filter = Record<string, unknown>

/**
 * The scope's conditions Elasticsearch can apply as `filter` clauses (a column equal to a value,
 * a true boolean column, an array column holding a value); the others are checked in SQL only.
 */
export const scopeFilters = (scope: Scope): { filters: Filter[]; complete: boolean } => {
  const filters: Filter[] = []
  let complete = true
  for (const part of scope) {
    const [condition, value] = typeof part === 'string' ? [part, true] : part
    const column =
      /^(\w+) = \?$/.exec(condition)?.[1] ??
      /^(\w+) @> ARRAY\[\?\]::text\[\]$/.exec(condition)?.[1] ??
      /^(\w+)$/.exec(condition)?.[1]
    if (column) filters.push({ term: { [column]: value } })
    else complete = false
  }
  return { filters, complete }
}

/**
 * The bulk operations writing a key's rows at `position` into each index, and removing the
 * documents it had before (`before`, as recorded in the database) that are gone.
 */
export const mirrorOperations = (
  indices: string[],
  rows: Array<{ id: string; doc: Record<string, unknown> }>,
  before: string[],
  position: number,
  /** The one of `indices` that is an alias: writes through it never create an index. */
  alias?: string,
) => {
  const version = { version: position, version_type: 'external_gte' as const }
  const kept = new Set(rows.map((r) => r.id))
  const gone = before.filter((id) => !kept.has(id))
  return indices.flatMap((index) => [
    ...rows.flatMap((r) => [
      { index: { _index: index, _id: r.id, ...version, ...(index === alias ? { require_alias: true } : {}) } },
      r.doc,
    ]),
    ...gone.map((id) => ({ delete: { _index: index, _id: id, ...version } })),
  ])
}

/** A document refused for any reason but an older version than the index holds (which is wanted). */
export const refusals = (items: Array<Record<string, { status: number; error?: { reason?: string | null } }>>) =>
  items.flatMap((item) => Object.values(item)).filter((r) => r.error && r.status !== 409)

/** The ids each key's documents had when last written: the documents a change leaves behind are found here. */
export const mirroredSchema = `CREATE TABLE IF NOT EXISTS public.es_mirrored (
  table_name text NOT NULL, key text NOT NULL, ids text[] NOT NULL, PRIMARY KEY (table_name, key))`

/**
 * The indices being built from the database, for every process of it: each one that projects writes to
 * them as well until the alias moves (./elasticsearchBuild.ts). A build touches its row as it goes.
 */
export const buildingSchema = `CREATE TABLE IF NOT EXISTS public.es_building (
  index_name text PRIMARY KEY, table_name text NOT NULL, started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now())`

/**
 * An error that means the server was not reached, failed, or is overloaded (429), not that it refused
 * the request: a search falls back, a write waits and is tried again.
 */
export const unreachable = (error: unknown) =>
  error instanceof errors.ConnectionError ||
  error instanceof errors.TimeoutError ||
  error instanceof errors.NoLivingConnectionsError ||
  (error instanceof errors.ResponseError && ((error.statusCode ?? 0) >= 500 || overloaded(error.statusCode)))

/** Elasticsearch's answer to more than it can take now (a full queue: es_rejected_execution_exception). */
export const overloaded = (status: number | undefined) => status === 429

/** Documents of a bulk request refused for the server's load or fault (429, 5xx), not for themselves. */
export const refusedForLoad = (refused: Array<{ status: number }>) =>
  refused.filter((r) => overloaded(r.status) || r.status >= 500)

/** An index or alias that is not there. */
export const missing = (error: unknown) => error instanceof errors.ResponseError && error.statusCode === 404
