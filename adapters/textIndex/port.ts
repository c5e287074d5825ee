import type { Database, Queryable } from '../db'
import { type MetadataCondition, type TimeRange, metadataScope, timeScope } from './filters'

export interface SearchFilters {
  source?: string
  category?: string
  tag?: string
  folderId?: string
  /** Conditions on metadata keys, every one to hold (./filters.ts). */
  metadata?: Record<string, MetadataCondition>
  /** When the entry was created, or last changed: ISO times. */
  createdAt?: TimeRange
  updatedAt?: TimeRange
}

/**
 * The rows a search may return: conditions joined by AND, each `?` in one a bound parameter, given
 * in order after it. The adapters number the parameters, so the values are always data, never spliced into SQL.
 */
export type Scope = Array<string | [condition: string, ...values: unknown[]]>

export interface TextCandidate {
  /** The row's id (a chunk, an entry, a page version). */
  id: string
  /** What the row belongs to (the entry, the page): results are one per key. */
  key: string
}

export interface TextQuery {
  /** A table with `column` indexed by this adapter's `indexDdl`. */
  table: string
  column: string
  /** The column identifying a row: `id` unless said. */
  id?: string
  /** The column naming what a row belongs to. */
  key: string
  query: string
  scope: Scope
  limit: number
}

/** A table whose rows an index outside the database holds as documents. */
export interface MirroredTable {
  table: string
  /** The column identifying a row: `id` unless said. */
  id?: string
  /** The column naming what a row belongs to. */
  key: string
}

/** The rows of a table belonging to one key (an entry, a page), written at an event's position. */
export interface MirrorRows extends MirroredTable {
  /** The key's value. */
  value: string
  position: number
}

/**
 * Keyword candidates over a table's text column, best first. Only the order comes from the index:
 * scores are computed from the rows' stored term frequencies (./terms.ts), the same whichever index
 * found them. The query is always passed as data (a bound parameter), never spliced into SQL.
 */
export interface TextIndex {
  readonly name: string
  /** DDL of the index on a table's text column (part of the owning projection's schema). */
  indexDdl(table: string, column: string): string
  /** Rows in scope matching the query, best first. */
  candidates(q: Queryable, params: TextQuery): Promise<TextCandidate[]>
  /**
   * For an index kept outside the database: copies a key's rows as `q` (the batch's transaction) sees
   * them (gone rows removed), called by the projector after each event that changes them; the copies
   * are sent by `refresh`. An index inside the database has none: it is updated with its table.
   */
  mirror?(q: Queryable, rows: MirrorRows): Promise<void>
  /**
   * Sends what `mirror` gathered of these tables (one request a batch) and makes it searchable; called
   * once a batch, in its transaction, before its checkpoint commits.
   */
  refresh?(tables: string[]): Promise<void>
  /**
   * For an index outside the database, at start: makes each table's index ready, built from the
   * table's rows where it is missing or has an older mapping.
   */
  open?(db: Database, tables: MirroredTable[]): Promise<void>
  /** Builds a table's outside index again from its rows: after a projection rebuild, or a restore. */
  rebuild?(db: Database, table: MirroredTable): Promise<void>
  close?(): Promise<void>
}

/** The scope as SQL (` AND ...` per condition) with its parameters numbered from `first`. */
export const scopeSql = (scope: Scope, first: number) => {
  const args: unknown[] = []
  const sql = scope
    .map((part) => {
      if (typeof part === 'string') return ` AND ${part}`
      const [condition, ...values] = part
      let n = 0
      const sql = condition.replace(/\?/g, () => {
        args.push(values[n++])
        return `$${first + args.length - 1}`
      })
      if (n !== values.length) throw new Error(`a scope condition has ${n} parameters and ${values.length} values`)
      return ` AND ${sql}`
    })
    .join('')
  return { sql, args }
}

const entriesThen = (then?: string) => (then ? `kb_entries_history WHERE ${then} AND` : 'kb_entries WHERE')

/**
 * The chunks a knowledge search may return: the workspace's enabled chunks passing the filters, the
 * filters on an entry's folder, metadata and times read from the entries' history rows meeting `then`
 * where given (the condition of rows current at a past moment). The rows of the index's own history
 * are kept to those current then by the search (`scopeAt` of ../history.ts).
 */
export const chunkScope = (workspaceId: string, filters: SearchFilters, then?: string): Scope => [
  ['workspace_id = ?', workspaceId],
  'is_enabled',
  ...(filters.source ? [['source = ?', filters.source] as [string, unknown]] : []),
  ...(filters.category ? [['category = ?', filters.category] as [string, unknown]] : []),
  ...(filters.tag ? [['tags @> ARRAY[?]::text[]', filters.tag] as [string, unknown]] : []),
  // Every table of the index has entry_id; an entry's folder is read where it is kept.
  ...(filters.folderId
    ? [[`entry_id IN (SELECT id FROM ${entriesThen(then)} folder_id = ?)`, filters.folderId] as [string, unknown]]
    : []),
  ...metadataScope(workspaceId, filters.metadata, then),
  ...timeScope(workspaceId, { created_at: filters.createdAt, updated_at: filters.updatedAt }, entriesThen(then)),
]
