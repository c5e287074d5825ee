import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type TextIndex, scopeSql } from './port'

/**
 * BM25 through pg_textsearch (PGlite's extension, or a server that has it). `<@>` answers the
 * negative BM25 score; the score served is s / (s + 1) for s = BM25 >= 0: monotonic, 0 for no
 * match, 0.5 at s = 1, approaching 1 for strong matches.
 */
export const pgTextsearchIndex = (): TextIndex => ({
  name: 'pg_textsearch',
  indexDdl: (table) => `CREATE INDEX ${table}_bm25 ON ${table} USING bm25 (searchable_text) WITH (text_config='english');`,
  search: async (q: Queryable, { table, key, query, scope, limit }) => {
    const text = searchableText(query)
    if (!text) return []
    const s = scopeSql(scope, 3)
    const rank = `searchable_text <@> to_bm25query($1, '${table}_bm25')`
    const { rows } = await q.query<{ id: string; key: string; bm25: number }>(
      `SELECT id, ${key} AS key, -(${rank}) AS bm25 FROM ${table} WHERE true${s.sql} ORDER BY ${rank} LIMIT $2`,
      [text, limit, ...s.args],
    )
    return rows.filter((r) => r.bm25 > 0).map((r) => ({ id: r.id, key: r.key, score: r.bm25 / (r.bm25 + 1) }))
  },
})
