import * as t from 'io-ts'
import type { Client } from '../adapters/db'
import { cachedOrPending, cachedVector, embeddingInput } from '../adapters/embeddingCache'
import type { Embedder } from '../adapters/embedders/port'
import type { RecordedEvent } from '../adapters/eventstore/port'
import { searchableText } from '../adapters/text'
import type { TextIndex } from '../adapters/textIndex/port'
import { countTerms, lenSql, termStatsSchema, tfSql } from '../adapters/textIndex/terms'
import { ensureVectorIndex, vectorColumn, vectorIndexDdl } from '../adapters/vectorIndex'
import { EmbeddingsRebuilt } from '../domain/embeddings'
import { type ChunkSpans, EntryEvent } from '../domain/entry'
import { entryPassages } from '../ingestion/passages'
import { historyDdl, recordHistory } from './history'
import { type Projector, decodeEvent } from './projector'

const Event = t.union([EntryEvent, EmbeddingsRebuilt])

export interface ChunksOptions {
  embedder: Embedder
  /** Whether the database has pgvector (else vectors are kept as real[] and searched by an exact scan). */
  vectors: boolean
  textIndex: TextIndex
}

/** The index's tables, each with its history (./history.ts), all keyed by entry. */
const TABLES = ['kb_chunks', 'kb_chunk_entries', 'kb_passages']
/** Columns whose change alone makes no new row of history. */
const UNVERSIONED: Record<string, string[]> = { kb_chunks: ['revision'] }

/** What an index outside the database holds: chunks, and entries' titles and text. */
const MIRRORED = [
  { table: 'kb_chunks', key: 'entry_id' },
  { table: 'kb_chunk_entries', id: 'entry_id', key: 'entry_id' },
]

/** Statistics of the knowledge search's fields: `chunk` (kb_chunks), `title` and `body` (kb_chunk_entries). */
export const CHUNK_STATS = 'kb_chunk'

/**
 * The search index of knowledge entries, with the entry facts search filters on (workspace,
 * enabled, source, category, tags) on every row, so that filters apply inside the index scans:
 * - kb_chunks: each entry's chunks, cut where its events say (served as results, BM25 per chunk);
 * - kb_chunk_entries: each entry as a whole, its title and its full text (BM25 per entry);
 * - kb_passages: the vectors, one per passage the embedding model reads whole (or per chunk).
 * Ids are `<entryId>:<index>`: replaying an entry's events rewrites the same rows. Vectors come
 * from the embedding cache: the command embedded them already, and a rebuild never embeds twice.
 * Each table keeps its history, so a search can run over the index as it stood at a past position;
 * a deletion cuts the entry's history too.
 */
export const chunksProjector = ({ embedder, vectors, textIndex }: ChunksOptions): Projector => ({
  name: 'chunks',
  version: 11,
  tables: [...TABLES.flatMap((t) => [t, `${t}_history`]), `${CHUNK_STATS}_terms`, `${CHUNK_STATS}_fields`],
  schema: `
    CREATE TABLE kb_chunks (
      id text PRIMARY KEY, entry_id text NOT NULL, workspace_id text NOT NULL, chunk_index integer NOT NULL,
      content text NOT NULL, searchable_text text NOT NULL, start_offset integer NOT NULL, end_offset integer NOT NULL,
      token_count integer NOT NULL, page_url text, is_enabled boolean NOT NULL, source text NOT NULL, category text,
      tags text[] NOT NULL, tf jsonb NOT NULL, len integer NOT NULL, revision bigint NOT NULL);
    ${historyDdl('kb_chunks', 'entry_id', 'id')}
    CREATE INDEX kb_chunks_entry ON kb_chunks (entry_id, chunk_index);
    CREATE INDEX kb_chunks_workspace ON kb_chunks (workspace_id);
    ${textIndex.indexDdl('kb_chunks', 'searchable_text')}
    ${textIndex.indexDdl('kb_chunks_history', 'searchable_text')}
    CREATE TABLE kb_chunk_entries (
      entry_id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL, embed boolean NOT NULL,
        is_enabled boolean NOT NULL,
      source text NOT NULL, metadata jsonb NOT NULL, category text, tags text[] NOT NULL,
      title_text text NOT NULL, title_tf jsonb NOT NULL, title_len integer NOT NULL,
      body_text text NOT NULL, body_tf jsonb NOT NULL, body_len integer NOT NULL);
    ${historyDdl('kb_chunk_entries', 'entry_id')}
    CREATE INDEX kb_chunk_entries_workspace ON kb_chunk_entries (workspace_id);
    ${['kb_chunk_entries', 'kb_chunk_entries_history']
      .flatMap((table) => [textIndex.indexDdl(table, 'title_text'), textIndex.indexDdl(table, 'body_text')])
      .join('\n')}
    CREATE TABLE kb_passages (
      id text PRIMARY KEY, entry_id text NOT NULL, workspace_id text NOT NULL, chunk_index integer NOT NULL,
      start_offset integer NOT NULL, end_offset integer NOT NULL, content text NOT NULL,
      is_enabled boolean NOT NULL, source text NOT NULL, category text, tags text[] NOT NULL,
      model text, text_hash text, embedding ${vectorColumn(vectors)});
    ${historyDdl('kb_passages', 'entry_id', 'id')}
    -- The history finds its vectors in the embedding cache by text hash: it keeps none of its own, and no index.
    ALTER TABLE kb_passages_history DROP COLUMN embedding;
    CREATE INDEX kb_passages_unembedded ON kb_passages (text_hash) WHERE embedding IS NULL AND model IS NOT NULL;
    CREATE INDEX kb_passages_entry ON kb_passages (entry_id, chunk_index);
    ${vectors ? vectorIndexDdl('kb_passages', embedder.model, embedder.dimensions) : ''}
    ${termStatsSchema(CHUNK_STATS)}
  `,
  handles: [
    'EntryCreated',
    'EntryUpdated',
    'EntryMetadataReplaced',
    'EntryContentProcessed',
    'EntryDeleted',
    'EmbeddingsRebuilt',
  ],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    switch (e.type) {
      case 'EntryCreated': {
        const d = e.data
        await createEntry(tx, d)
        await writeChunks(tx, embedder, vectors, d.entryId, d.content, d.chunks, recorded.revision)
        break
      }
      case 'EntryUpdated': {
        const { content, chunks, isEnabled, metadata, title } = e.data.changes
        if (isEnabled !== undefined || metadata !== undefined) await refilter(tx, e.data.entryId, isEnabled, metadata)
        if (title !== undefined) await rewriteEntry(tx, e.data.entryId, 'title', title)
        if (content !== undefined && chunks !== undefined) {
          await rewriteEntry(tx, e.data.entryId, 'body', content)
          await writeChunks(tx, embedder, vectors, e.data.entryId, content, chunks, recorded.revision)
        } else if (title !== undefined) await writeVectors(tx, embedder, vectors, 'p.entry_id = $1', e.data.entryId)
        break
      }
      case 'EntryMetadataReplaced':
        await refilter(tx, e.data.entryId, undefined, e.data.metadata, true)
        break
      case 'EntryContentProcessed':
        // A task's result replaces the chunks at once: a half-processed entry is never searchable.
        await rewriteEntry(tx, e.data.entryId, 'body', e.data.content)
        await writeChunks(tx, embedder, vectors, e.data.entryId, e.data.content, e.data.chunks, recorded.revision)
        break
      case 'EntryDeleted':
        // Deleted content is never served again, as of any time.
        for (const table of TABLES) await tx.query(`DELETE FROM ${table}_history WHERE entry_id = $1`, [e.data.entryId])
        await deleteChunks(tx, e.data.entryId)
        await countTerms(
          tx,
          CHUNK_STATS,
          'gone AS (DELETE FROM kb_chunk_entries WHERE entry_id = $1 RETURNING *)',
          entryFields('gone', -1),
          [e.data.entryId],
        )
        break
      case 'EmbeddingsRebuilt':
        // A re-embedding: every embedded passage of the workspace gets this embedder's vector at once,
        // and so do those of its history, which an earlier model's query vectors no longer match.
        for (const history of [false, true])
          await writeVectors(tx, embedder, vectors, 'p.workspace_id = $1', e.data.workspaceId, history)
        return
    }
    // A chunk an edit left as it was keeps its row of history (and the revision it came with).
    if (e.type !== 'EntryDeleted')
      for (const table of TABLES)
        await recordHistory(tx, table, 'entry_id', e.data.entryId, recorded.position, UNVERSIONED[table])
    // An index outside the database gets the entry's rows as they now are.
    for (const rows of MIRRORED)
      await textIndex.mirror?.(tx, { ...rows, value: e.data.entryId, position: recorded.position })
  },
  mirrored: MIRRORED,
  afterRebuild: async (db) => {
    for (const t of MIRRORED) await textIndex.rebuild?.(db, t)
  },
  prepare: async (tx) => {
    if (vectors) await ensureVectorIndex(tx, 'kb_passages', embedder.model, embedder.dimensions)
  },
  afterBatch: async () => textIndex.refresh?.(['kb_chunks', 'kb_chunk_entries']),
})

/** The title and body statistics rows of entry rows (a CTE's name), for countTerms. */
const entryFields = (rows: string, sign: 1 | -1, fields: Array<'title' | 'body'> = ['title', 'body']) =>
  fields
    .map((f) => `SELECT workspace_id, '${f}' AS field, ${f}_tf AS tf, ${f}_len AS len, ${sign} AS sign FROM ${rows}`)
    .join(' UNION ALL ')

/** Chunks' statistics rows, for countTerms. */
const chunkFields = (rows: string, sign: 1 | -1) =>
  `SELECT workspace_id, 'chunk' AS field, tf, len, ${sign} AS sign FROM ${rows}`

const createEntry = async (tx: Client, d: Extract<EntryEvent, { type: 'EntryCreated' }>['data']) => {
  const title = searchableText(d.title)
  const body = searchableText(d.content)
  await countTerms(
    tx,
    CHUNK_STATS,
    `added AS (
      INSERT INTO kb_chunk_entries (entry_id, workspace_id, title, embed, is_enabled, source, metadata, category, tags,
        title_text, title_tf, title_len, body_text, body_tf, body_len)
      SELECT $1, $2, $3, $4, $5, $6, m, m->>'category',
         coalesce(ARRAY(SELECT jsonb_array_elements_text(m->'tags')), '{}'),
        $7, t.tf, ${lenSql('t.tf')}, $8, b.tf, ${lenSql('b.tf')}
      FROM (SELECT $9::jsonb AS m) x, (SELECT ${tfSql('$7::text')} AS tf) t, (SELECT ${tfSql('$8::text')} AS tf) b
      ON CONFLICT (entry_id) DO NOTHING RETURNING *)`,
    entryFields('added', 1),
    [d.entryId, d.workspaceId, d.title, d.embed, d.isEnabled, d.source, title, body, JSON.stringify(d.metadata)],
  )
}

/** A new title or body for an entry, its statistics moved from the old text's to the new one's. */
const rewriteEntry = async (tx: Client, entryId: string, field: 'title' | 'body', text: string) => {
  const set = field === 'title' ? 'title = $3, ' : ''
  await countTerms(
    tx,
    CHUNK_STATS,
    `old AS (SELECT * FROM kb_chunk_entries WHERE entry_id = $1),
     new AS (UPDATE kb_chunk_entries SET ${set}${field}_text = $2, ${field}_tf = t.tf, ${field}_len = ${lenSql('t.tf')}
       FROM (SELECT ${tfSql('$2::text')} AS tf) t WHERE entry_id = $1 RETURNING kb_chunk_entries.*)`,
    `${entryFields('old', -1, [field])} UNION ALL ${entryFields('new', 1, [field])}`,
    field === 'title' ? [entryId, searchableText(text), text] : [entryId, searchableText(text)],
  )
}

/** The entry's filter facts copied to its chunks and passages, so filters apply inside the index scans. */
/** An entry's switch and metadata on its search rows: the metadata's keys merged, or (`replace`) set whole. */
const refilter = async (
  tx: Client,
  entryId: string,
  isEnabled: boolean | undefined,
  metadata: unknown,
  replace = false,
) => {
  const merged = `(CASE WHEN $4 THEN $3::jsonb ELSE metadata || coalesce($3::jsonb, '{}'::jsonb) END)`
  await tx.query(
    `UPDATE kb_chunk_entries SET is_enabled = coalesce($2, is_enabled), metadata = ${merged},
       category = ${merged}->>'category',
       tags = coalesce(ARRAY(SELECT jsonb_array_elements_text(${merged}->'tags')), '{}')
     WHERE entry_id = $1`,
    [entryId, isEnabled ?? null, metadata ? JSON.stringify(metadata) : null, replace],
  )
  for (const table of ['kb_chunks', 'kb_passages']) {
    await tx.query(
      `UPDATE ${table} c SET is_enabled = x.is_enabled, category = x.category, tags = x.tags
       FROM kb_chunk_entries x WHERE x.entry_id = $1 AND c.entry_id = x.entry_id`,
      [entryId],
    )
  }
}

const deleteChunks = async (tx: Client, entryId: string) => {
  await countTerms(
    tx,
    CHUNK_STATS,
    'gone AS (DELETE FROM kb_chunks WHERE entry_id = $1 RETURNING workspace_id, tf, len)',
    chunkFields('gone', -1),
    [entryId],
  )
  await tx.query('DELETE FROM kb_passages WHERE entry_id = $1', [entryId])
}

const writeChunks = async (
  tx: Client,
  embedder: Embedder,
  pgvector: boolean,
  entryId: string,
  content: string,
  spans: ChunkSpans,
  /** The entry stream's revision of the event that holds this content: the version a search serves. */
  revision: number,
) => {
  const { rows } = await tx.query<{ embed: boolean; title: string }>(
    'SELECT embed, title FROM kb_chunk_entries WHERE entry_id = $1',
    [entryId],
  )
  if (!rows[0]) return
  const { embed, title } = rows[0]
  await deleteChunks(tx, entryId)
  if (spans.length === 0) return
  const chunks = spans.map((s, index) => ({ ...s, index, text: content.slice(s.start, s.end) }))
  await countTerms(
    tx,
    CHUNK_STATS,
    `added AS (
      INSERT INTO kb_chunks (id, entry_id, workspace_id, chunk_index, content, searchable_text, start_offset,
        end_offset, token_count, is_enabled, source, category, tags, page_url, tf, len, revision)
      SELECT $1 || ':' || i, $1, x.workspace_id, i, c, s, so, eo, tc, x.is_enabled, x.source, x.category, x.tags, p,
        t.tf, ${lenSql('t.tf')}, $9::bigint
      FROM unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::int[], $8::text[])
         AS u(i, c, s, so, eo, tc, p)
      CROSS JOIN LATERAL (SELECT ${tfSql('u.s')} AS tf) t
      JOIN kb_chunk_entries x ON x.entry_id = $1
      RETURNING workspace_id, tf, len)`,
    chunkFields('added', 1),
    [
      entryId,
      chunks.map((c) => c.index),
      chunks.map((c) => c.text),
      chunks.map((c) => searchableText(c.text)),
      chunks.map((c) => c.start),
      chunks.map((c) => c.end),
      chunks.map((c) => c.tokenCount),
      chunks.map((c) => c.pageUrl ?? null),
      revision,
    ],
  )
  const passages = entryPassages(content, spans, embedder.passageWords)
  const hashes = embed
    ? await cachedOrPending(
        tx,
        embedder.model,
        passages.map((p) => embeddingInput(title, p.text)),
      )
    : []
  await tx.query(
    `INSERT INTO kb_passages (id, entry_id, workspace_id, chunk_index, start_offset, end_offset, content, is_enabled,
      source, category, tags, model, text_hash, embedding)
     SELECT $1 || ':' || n, $1, x.workspace_id, ci, so, eo, c, x.is_enabled, x.source, x.category, x.tags, $2, h,
       ${cachedVector('$2', 'h', pgvector)}
     FROM unnest($3::int[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[]) AS u(n, ci, so, eo, c, h)
     JOIN kb_chunk_entries x ON x.entry_id = $1`,
    [
      entryId,
      embed ? embedder.model : null,
      passages.map((_, n) => n),
      passages.map((p) => p.chunkIndex),
      passages.map((p) => p.start),
      passages.map((p) => p.end),
      passages.map((p) => p.text),
      passages.map((_, n) => (embed ? hashes[n] : null)),
    ],
  )
}

/**
 * Fresh vectors (from the cache) for the embedded passages a condition selects, all in one statement;
 * in the history, each passage with the entry's title of then.
 */
const writeVectors = async (
  tx: Client,
  embedder: Embedder,
  pgvector: boolean,
  where: string,
  arg: string,
  history = false,
) => {
  const [suffix, then] = history ? ['_history', ' AND x.valid_from = p.valid_from'] : ['', '']
  // The history keeps no vectors: its rows name theirs in the cache by model and hash.
  const embedding = history ? '' : `, embedding = ${cachedVector('$1', 'u.h', pgvector)}`
  // Rows are named by their place in the table (ctid), which holds until this transaction changes them.
  const { rows } = await tx.query<{ id: string; content: string; title: string }>(
    `SELECT p.ctid::text AS id, p.content, x.title FROM kb_passages${suffix} p
     JOIN kb_chunk_entries${suffix} x ON x.entry_id = p.entry_id${then} WHERE ${where} AND x.embed`,
    [arg],
  )
  if (rows.length === 0) return
  const hashes = await cachedOrPending(
    tx,
    embedder.model,
    rows.map((r) => embeddingInput(r.title, r.content)),
  )
  await tx.query(
    `UPDATE kb_passages${suffix} p SET model = $1, text_hash = u.h${embedding}
     FROM unnest($2::tid[], $3::text[]) AS u(id, h) WHERE p.ctid = u.id`,
    [embedder.model, rows.map((r) => r.id), hashes],
  )
}
