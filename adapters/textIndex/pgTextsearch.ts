import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type TextIndex, filterSql } from './port'

const INDEX = 'kb_chunks_bm25'

/**
 * BM25 through pg_textsearch (PGlite's extension, or a server that has it). `<@>` answers the
 * negative BM25 score; the score served is s / (s + 1) for s = BM25 >= 0: monotonic, 0 for no
 * match, 0.5 at s = 1, approaching 1 for strong matches.
 */
export const pgTextsearchIndex = (): TextIndex => ({
  name: 'pg_textsearch',
  indexDdl: (table, column) => `CREATE INDEX ${INDEX} ON ${table} USING bm25 (${column}) WITH (text_config='english');`,
  search: async (q: Queryable, { workspaceId, query, filters, limit }) => {
    const text = searchableText(query)
    if (!text) return []
    const f = filterSql(filters, 4)
    const { rows } = await q.query<{ id: string; entry_id: string; bm25: number }>(
      `SELECT id, entry_id, -(searchable_text <@> to_bm25query($2, '${INDEX}')) AS bm25 FROM kb_chunks
       WHERE workspace_id = $1 AND is_enabled${f.sql}
       ORDER BY searchable_text <@> to_bm25query($2, '${INDEX}') LIMIT $3`,
      [workspaceId, text, limit, ...f.args],
    )
    return rows.filter((r) => r.bm25 > 0).map((r) => ({ chunkId: r.id, entryId: r.entry_id, score: r.bm25 / (r.bm25 + 1) }))
  },
})
