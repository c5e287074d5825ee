import type { Queryable } from '../db'
import type { Logger } from '../logger'
import { pgTextsearchIndex } from './pgTextsearch'
import type { TextIndex } from './port'
import { tsvectorIndex } from './tsvector'

/**
 * Elasticsearch when its URL is set (its client loaded only then); else BM25 through pg_textsearch
 * where the database has it, built-in full-text search otherwise.
 */
export const openTextIndex = async (
  q: Queryable,
  elasticsearchUrl?: string,
  options: { replicas?: number; log?: Pick<Logger, 'warn' | 'info'> } = {},
): Promise<TextIndex> => {
  if (elasticsearchUrl) {
    const { elasticsearchIndex } = await import('./elasticsearch')
    return elasticsearchIndex(elasticsearchUrl, options)
  }
  const { rows } = await q.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'pg_textsearch'",
  )
  if (rows[0].n === 0) return tsvectorIndex()
  await q.query('CREATE EXTENSION IF NOT EXISTS pg_textsearch')
  return pgTextsearchIndex()
}
