import type { Client, Pause } from '../../adapters/db'
import { cachedOrPending, cachedVector, embeddingInput } from '../../adapters/embeddingCache'
import type { Embedder } from '../../adapters/embedders/port'
import { searchableText } from '../../adapters/text'
import { CHUNK_STATS, countTerms, lenSql, tfSql } from '../../adapters/textIndex/terms'
import type { ChunkSpans } from '../../domain/knowledge'
import { headingPathAt, subjectOf } from '../../ingestion/headings'
import { entryPassages } from '../../ingestion/passages'
import { pieceText } from '../../ingestion/tables'
import { Pace, inParts } from '../parts'

// An entry's chunks and passages in the knowledge search index (./chunks.ts), for the text an event
// gives it, with the chunks' term statistics: written in parts, so that a long text holds the
// database for a part at a time.

/** Chunks' statistics rows, for countTerms. */
const chunkFields = (rows: string, sign: 1 | -1) =>
  `SELECT workspace_id, 'chunk' AS field, tf, len, ${sign} AS sign FROM ${rows}`

/** The entry's chunks from `from` on and its passages but `kept`, with the chunks' statistics. */
export const dropChunks = async (tx: Client, entryId: string, from: number, kept: string[] = []) => {
  await countTerms(
    tx,
    CHUNK_STATS,
    'gone AS (DELETE FROM kb_chunks WHERE entry_id = $1 AND chunk_index >= $2 RETURNING workspace_id, tf, len)',
    chunkFields('gone', -1),
    [entryId, from],
  )
  await tx.query('DELETE FROM kb_passages WHERE entry_id = $1 AND NOT (id = ANY($2::text[]))', [entryId, kept])
}

const CHUNK_COLUMNS = [
  'id',
  'entry_id',
  'workspace_id',
  'chunk_index',
  'content',
  'searchable_text',
  'start_offset',
  'end_offset',
  'token_count',
  'is_enabled',
  'source',
  'category',
  'tags',
  'page_url',
  'heading_path',
  'tf',
  'len',
  'revision',
]
const PASSAGE_COLUMNS = [
  'id',
  'entry_id',
  'workspace_id',
  'chunk_index',
  'start_offset',
  'end_offset',
  'content',
  'heading_path',
  'is_enabled',
  'source',
  'category',
  'tags',
  'model',
  'text_hash',
]

/** SQL: whether the rows `a` and `b` hold the same in every column. */
const same = (columns: string[], a: string, b: string) => {
  const row = (alias: string) => `ROW(${columns.map((c) => `${alias}.${c}`).join(', ')})`
  return `${row(a)} IS NOT DISTINCT FROM ${row(b)}`
}

/** SQL: an upsert's SET of every column but the id, from EXCLUDED. */
const setAll = (columns: string[]) =>
  columns
    .filter((c) => c !== 'id')
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ')

const chunkPace = new Pace()
const passagePace = new Pace()

/**
 * An entry's chunks and passages for its new text, written in parts with a pause between them: each
 * row is written over the one of its id, only where it differs (an unchanged passage keeps its vector
 * and its place in the index), then the rows past the new text's end go. A search meanwhile finds the
 * entry by all its chunks and passages, some of the new text and some of the old.
 */
export const writeChunks = async (
  tx: Client,
  embedder: Embedder,
  pgvector: boolean,
  entryId: string,
  content: string,
  spans: ChunkSpans,
  /** The entry stream's revision of the event that holds this content: the version a search serves. */
  revision: number,
  pause: Pause,
) => {
  const { rows } = await tx.query<{ embed: boolean; title: string }>(
    'SELECT embed, title FROM kb_chunk_entries WHERE entry_id = $1',
    [entryId],
  )
  if (!rows[0]) return
  const { embed, title } = rows[0]
  // Each row stands under the headings above where it starts: indexed with its words, embedded beside the title.
  // A chunk that starts among a table's rows holds the table's header first: served, indexed and embedded so.
  const pathAt = headingPathAt(content)
  const piece = pieceText(content)
  const chunks = spans.map((s, index) => ({ ...s, index, text: piece(s.start, s.end), path: pathAt(s.start) }))
  await inParts(chunks, chunkPace, pause, (part) =>
    countTerms(
      tx,
      CHUNK_STATS,
      `new AS (
        SELECT $1 || ':' || i AS id, $1 AS entry_id, x.workspace_id, i AS chunk_index, c AS content,
          s AS searchable_text, so AS start_offset, eo AS end_offset, tc AS token_count, x.is_enabled, x.source,
          x.category, x.tags, p AS page_url, nullif(hp, '') AS heading_path, t.tf, ${lenSql('t.tf')} AS len,
          $9::bigint AS revision
        FROM unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[], $10::text[])
           AS u(i, c, s, so, eo, tc, p, hp)
        CROSS JOIN LATERAL (SELECT ${tfSql('u.s')} AS tf) t
        JOIN kb_chunk_entries x ON x.entry_id = $1),
      changed AS (SELECT n.* FROM new n
        WHERE NOT EXISTS (SELECT 1 FROM kb_chunks o WHERE o.id = n.id AND ${same(CHUNK_COLUMNS, 'o', 'n')})),
      replaced AS (SELECT o.workspace_id, o.tf, o.len FROM kb_chunks o JOIN changed n ON n.id = o.id),
      added AS (
        INSERT INTO kb_chunks (${CHUNK_COLUMNS.join(', ')}) SELECT ${CHUNK_COLUMNS.join(', ')} FROM changed
        ON CONFLICT (id) DO UPDATE SET ${setAll(CHUNK_COLUMNS)}
        RETURNING workspace_id, tf, len)`,
      `${chunkFields('replaced', -1)} UNION ALL ${chunkFields('added', 1)}`,
      [
        entryId,
        part.map((c) => c.index),
        part.map((c) => c.text),
        part.map((c) => searchableText(c.path ? `${c.path}\n${c.text}` : c.text)),
        part.map((c) => c.start),
        part.map((c) => c.end),
        part.map((c) => c.tokenCount),
        part.map((c) => c.pageUrl ?? null),
        revision,
        part.map((c) => c.path),
      ],
    ),
  )
  const passages = entryPassages(content, spans, embedder.passageWords).map((p, n) => ({
    ...p,
    n,
    path: pathAt(p.start),
  }))
  const hashes = embed
    ? await cachedOrPending(
        tx,
        embedder.model,
        passages.map((p) => embeddingInput(subjectOf(title, p.path), p.text)),
      )
    : []
  await pause()
  await inParts(passages, passagePace, pause, async (part) => {
    await tx.query(
      `WITH new AS (
        SELECT $1 || ':' || n AS id, $1 AS entry_id, x.workspace_id, ci AS chunk_index, so AS start_offset,
          eo AS end_offset, c AS content, nullif(hp, '') AS heading_path, x.is_enabled, x.source, x.category,
          x.tags, $2::text AS model, h AS text_hash
        FROM unnest($3::int[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[])
          AS u(n, ci, so, eo, c, h, hp)
        JOIN kb_chunk_entries x ON x.entry_id = $1)
      INSERT INTO kb_passages (${PASSAGE_COLUMNS.join(', ')}, embedding)
      SELECT ${PASSAGE_COLUMNS.map((c) => `n.${c}`).join(', ')}, ${cachedVector('n.model', 'n.text_hash', pgvector)}
      FROM new n
      WHERE NOT EXISTS (SELECT 1 FROM kb_passages o WHERE o.id = n.id AND ${same(PASSAGE_COLUMNS, 'o', 'n')})
      ON CONFLICT (id) DO UPDATE SET ${setAll(PASSAGE_COLUMNS)}, embedding = EXCLUDED.embedding`,
      [
        entryId,
        embed ? embedder.model : null,
        part.map((p) => p.n),
        part.map((p) => p.chunkIndex),
        part.map((p) => p.start),
        part.map((p) => p.end),
        part.map((p) => p.text),
        part.map((p) => (embed ? hashes[p.n] : null)),
        part.map((p) => p.path),
      ],
    )
  })
  await dropChunks(
    tx,
    entryId,
    chunks.length,
    passages.map((p) => `${entryId}:${p.n}`),
  )
}
