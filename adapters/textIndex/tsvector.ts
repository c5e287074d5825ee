import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type TextIndex, scopeSql } from './port'

/** The stored tsvector of a text column: parsed once when the row is written, never at query time. */
const vectorColumn = (column: string) => `${column}_tsv`

/**
 * For a Postgres server without pg_textsearch: built-in full-text search finds the rows holding any
 * of the query's words (the terms of plainto_tsquery joined by OR), in ts_rank_cd order, over a
 * stored tsvector column with a GIN index.
 */
export const tsvectorIndex = (): TextIndex => ({
  name: 'tsvector',
  indexDdl: (table, column) =>
    `ALTER TABLE ${table} ADD COLUMN ${vectorColumn(column)} tsvector
       GENERATED ALWAYS AS (to_tsvector('english', ${column})) STORED;
     CREATE INDEX ${table}_${column}_fts ON ${table} USING gin (${vectorColumn(column)});`,
  candidates: async (q: Queryable, { table, column, id = 'id', key, query, scope, limit }) => {
    const text = searchableText(query)
    if (!text) return []
    const s = scopeSql(scope, 3)
    const v = vectorColumn(column)
    const { rows } = await q.query<{ id: string; key: string }>(
      `WITH query AS (SELECT replace(plainto_tsquery('english', $1)::text, '&', '|') AS t)
       SELECT ${id} AS id, ${key} AS key FROM ${table}, query
       WHERE t <> '' AND ${v} @@ t::tsquery${s.sql}
       ORDER BY ts_rank_cd(${v}, t::tsquery, 32) DESC, ${id} LIMIT $2`,
      [text, limit, ...s.args],
    )
    return rows
  },
})
