import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type TextIndex, scopeSql } from './port'

const indexName = (table: string, column: string) => `${table}_${column}_bm25`

/**
 * Candidates in BM25 order through pg_textsearch (PGlite's extension, or a server that has it).
 * The score is not selected: the extension would compute it again from each row's text (about
 * 1 ms a chunk of 1000 tokens), where the order alone costs a walk of its index.
 */
export const pgTextsearchIndex = (): TextIndex => ({
  name: 'pg_textsearch',
  indexDdl: (table, column) =>
    `CREATE INDEX ${indexName(table, column)} ON ${table} USING bm25 (${column}) WITH (text_config='english');`,
  candidates: async (q: Queryable, { table, column, id = 'id', key, query, scope, limit }) => {
    const text = searchableText(query)
    if (!text) return []
    const s = scopeSql(scope, 3)
    const { rows } = await q.query<{ id: string; key: string }>(
      `SELECT ${id} AS id, ${key} AS key FROM ${table} WHERE true${s.sql} ORDER BY ${column} <@> to_bm25query($1,
        '${indexName(table, column)}') LIMIT $2`,
      [text, limit, ...s.args],
    )
    return rows
  },
})
