import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type TextIndex, filterSql } from './port'

/**
 * For a Postgres server without pg_textsearch: built-in full-text search, any query word
 * matching (the terms of plainto_tsquery joined by OR), ranked by ts_rank_cd with normalisation
 * 32, rank / (rank + 1): monotonic and in [0, 1).
 */
export const tsvectorIndex = (): TextIndex => ({
  name: 'tsvector',
  indexDdl: (table, column) => `CREATE INDEX kb_chunks_fts ON ${table} USING gin (to_tsvector('english', ${column}));`,
  search: async (q: Queryable, { workspaceId, query, filters, limit }) => {
    const text = searchableText(query)
    if (!text) return []
    const f = filterSql(filters, 4)
    const { rows } = await q.query<{ id: string; entry_id: string; rank: number }>(
      `WITH query AS (SELECT replace(plainto_tsquery('english', $2)::text, '&', '|') AS t)
       SELECT id, entry_id, ts_rank_cd(to_tsvector('english', searchable_text), t::tsquery, 32) AS rank
       FROM kb_chunks, query
       WHERE t <> '' AND workspace_id = $1 AND is_enabled AND to_tsvector('english', searchable_text) @@ t::tsquery${f.sql}
       ORDER BY rank DESC, id LIMIT $3`,
      [workspaceId, text, limit, ...f.args],
    )
    return rows.map((r) => ({ chunkId: r.id, entryId: r.entry_id, score: r.rank }))
  },
})
