import type { Queryable } from '../db'

export interface SearchFilters {
  source?: string
  category?: string
  tag?: string
}

export interface TextHit {
  chunkId: string
  entryId: string
  /** In [0, 1], by the adapter's documented monotonic mapping of its raw score. */
  score: number
}

/**
 * Keyword search over chunks' searchableText. The query is always passed as data (a bound
 * parameter), never spliced into SQL or a query language.
 */
export interface TextIndex {
  readonly name: string
  /** DDL of the index on the chunks table (part of the chunks projection's schema). */
  indexDdl(table: string, column: string): string
  /** Enabled chunks of the workspace matching the query, best first. */
  search(q: Queryable, params: { workspaceId: string; query: string; filters: SearchFilters; limit: number }): Promise<TextHit[]>
}

/** The filter conditions every index applies inside its scan, starting at parameter `first`. */
export const filterSql = (filters: SearchFilters, first: number) => {
  const where: string[] = []
  const args: unknown[] = []
  const add = (sql: string, value: unknown) => (args.push(value), where.push(sql.replace('?', `$${first + args.length - 1}`)))
  if (filters.source) add('source = ?', filters.source)
  if (filters.category) add('category = ?', filters.category)
  if (filters.tag) add('tags @> ARRAY[?]::text[]', filters.tag)
  return { sql: where.map((w) => ` AND ${w}`).join(''), args }
}
