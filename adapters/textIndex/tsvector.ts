import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type TextIndex, scopeSql } from './port'

/**
 * For a Postgres server without pg_textsearch: built-in full-text search, any query word
 * matching (the terms of plainto_tsquery joined by OR), ranked by ts_rank_cd with normalisation
 * 32, rank / (rank + 1): monotonic and in [0, 1).
 */
export const tsvectorIndex = (): TextIndex => ({
  name: 'tsvector',
  indexDdl: (table) => `CREATE INDEX ${table}_fts ON ${table} USING gin (to_tsvector('english', searchable_text));`,
  search: async (q: Queryable, { table, key, query, scope, limit }) => {
    const text = searchableText(query)
    if (!text) return []
    const s = scopeSql(scope, 3)
    const { rows } = await q.query<{ id: string; key: string; rank: number }>(
      `WITH query AS (SELECT replace(plainto_tsquery('english', $1)::text, '&', '|') AS t)
       SELECT id, ${key} AS key, ts_rank_cd(to_tsvector('english', searchable_text), t::tsquery, 32) AS rank
       FROM ${table}, query
       WHERE t <> '' AND to_tsvector('english', searchable_text) @@ t::tsquery${s.sql}
       ORDER BY rank DESC, id LIMIT $2`,
      [text, limit, ...s.args],
    )
    return rows.map((r) => ({ id: r.id, key: r.key, score: r.rank }))
  },
})
