import * as t from 'io-ts'
import type { Client, Pause } from '../../adapters/db'
import type { Embedder } from '../../adapters/embedders/port'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import type { TextIndex } from '../../adapters/textIndex/port'
import { CHUNK_STATS, termStatsSchema } from '../../adapters/textIndex/terms'
import { ensureVectorIndex, vectorColumn, vectorIndexDdl } from '../../adapters/vectorIndex'
import { EmbeddingsRebuilt } from '../../domain/search/embeddings'
import { EntryEvent } from '../../domain/knowledge'
import { createEntry, deleteEntry, keepReplacedVectors, refilter, rewriteEntry, writeVectors } from './chunkRows'
import { writeChunks } from './entryChunks'
import { historyDdl, recordHistory } from '../history'
import { type Projector, decodeEvent, noPause } from '../projector'

const Event = t.union([EntryEvent, EmbeddingsRebuilt])

export interface ChunksOptions {
  embedder: Embedder
  /** Whether the database has pgvector (else vectors are kept as real[] and searched by an exact scan). */
  vectors: boolean
  textIndex: TextIndex
  /**
   * Tests only (KB_TEST_GARBLED_INDEX): every word of an entry's title and text is indexed spelt
   * backwards, an index that finds nothing by its words nor by its meaning. It stands for a broken
   * rebuild, which a rebuild's replay must refuse to put in service.
   */
  garbled?: boolean
}

const backwards = (text: string) => text.replace(/\p{L}+/gu, (word) => [...word].reverse().join(''))

/** An entry event with its title and text spelt backwards, word by word (offsets stay where they were). */
const garble = (e: t.TypeOf<typeof Event>): t.TypeOf<typeof Event> => {
  if (e.type === 'EntryCreated')
    return { ...e, data: { ...e.data, title: backwards(e.data.title), content: backwards(e.data.content) } }
  if (e.type === 'EntryContentProcessed') return { ...e, data: { ...e.data, content: backwards(e.data.content) } }
  if (e.type !== 'EntryUpdated') return e
  const { title, content } = e.data.changes
  const changes = {
    ...e.data.changes,
    ...(title !== undefined ? { title: backwards(title) } : {}),
    ...(content !== undefined ? { content: backwards(content) } : {}),
  }
  return { ...e, data: { ...e.data, changes } }
}

/** The index's tables, each with its history (projections/history.ts), all keyed by entry. */
const TABLES = ['kb_chunks', 'kb_chunk_entries', 'kb_passages']
/** Columns whose change alone makes no new row of history. */
const UNVERSIONED: Record<string, string[]> = { kb_chunks: ['revision'] }

/** The HNSW index of the vectors that closed rows of the passages' history keep. */
const HISTORY_VECTORS = (embedder: Embedder) =>
  ['kb_passages_history', embedder.model, embedder.dimensions, 'closed_embedding'] as const

/** What an index outside the database holds: chunks, and entries' titles and text. */
const MIRRORED = [
  { table: 'kb_chunks', key: 'entry_id' },
  { table: 'kb_chunk_entries', id: 'entry_id', key: 'entry_id' },
]

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
export const chunksProjector = ({ embedder, vectors, textIndex, garbled }: ChunksOptions): Projector => ({
  name: 'chunks',
  version: 15,
  tables: [...TABLES.flatMap((t) => [t, `${t}_history`]), `${CHUNK_STATS}_terms`, `${CHUNK_STATS}_fields`],
  schema: `
    CREATE TABLE kb_chunks (
      id text PRIMARY KEY, entry_id text NOT NULL, workspace_id text NOT NULL, chunk_index integer NOT NULL,
      content text NOT NULL, searchable_text text NOT NULL, start_offset integer NOT NULL, end_offset integer NOT NULL,
      token_count integer NOT NULL, page_url text, heading_path text, is_enabled boolean NOT NULL, source text NOT NULL,
      category text,
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
    -- Searches filter on metadata keys by containment (adapters/textIndex/filters.ts).
    CREATE INDEX kb_chunk_entries_metadata ON kb_chunk_entries USING gin (metadata);
    ${['kb_chunk_entries', 'kb_chunk_entries_history']
      .flatMap((table) => [textIndex.indexDdl(table, 'title_text'), textIndex.indexDdl(table, 'body_text')])
      .join('\n')}
    CREATE TABLE kb_passages (
      id text PRIMARY KEY, entry_id text NOT NULL, workspace_id text NOT NULL, chunk_index integer NOT NULL,
      start_offset integer NOT NULL, end_offset integer NOT NULL, content text NOT NULL, heading_path text,
      is_enabled boolean NOT NULL, source text NOT NULL, category text, tags text[] NOT NULL,
      model text, text_hash text, embedding ${vectorColumn(vectors)});
    ${historyDdl('kb_passages', 'entry_id', 'id')}
    -- A row of history whose text is its passage's text now has the current row's vector. A row whose
    -- text an edit replaced keeps its vector from the cache (keepReplacedVectors), in an index of its
    -- own, so a search of a past moment finds what changed since as fast as what did not.
    ALTER TABLE kb_passages_history DROP COLUMN embedding;
    ALTER TABLE kb_passages_history ADD COLUMN replaced boolean NOT NULL DEFAULT false,
      ADD COLUMN closed_embedding ${vectorColumn(vectors)};
    CREATE INDEX kb_passages_history_unkept ON kb_passages_history (workspace_id)
      WHERE replaced AND closed_embedding IS NULL AND model IS NOT NULL;
    CREATE INDEX kb_passages_unembedded ON kb_passages (text_hash) WHERE embedding IS NULL AND model IS NOT NULL;
    CREATE INDEX kb_passages_entry ON kb_passages (entry_id, chunk_index);
    ${vectors ? vectorIndexDdl('kb_passages', embedder.model, embedder.dimensions) : ''}
    ${vectors ? vectorIndexDdl(...HISTORY_VECTORS(embedder)) : ''}
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
  async apply(tx: Client, recorded: RecordedEvent, pause: Pause) {
    const decoded = decodeEvent(Event, recorded)
    const e = garbled ? garble(decoded) : decoded
    switch (e.type) {
      case 'EntryCreated': {
        const d = e.data
        await createEntry(tx, d)
        await pause()
        await writeChunks(tx, embedder, vectors, d.entryId, d.content, d.chunks, recorded.revision, pause)
        break
      }
      case 'EntryUpdated': {
        const { content, chunks, isEnabled, metadata, title } = e.data.changes
        if (isEnabled !== undefined || metadata !== undefined)
          await refilter(tx, e.data.entryId, isEnabled, metadata, pause)
        if (title !== undefined) await rewriteEntry(tx, e.data.entryId, 'title', title)
        if (content !== undefined && chunks !== undefined) {
          await pause()
          await rewriteEntry(tx, e.data.entryId, 'body', content)
          await pause()
          await writeChunks(tx, embedder, vectors, e.data.entryId, content, chunks, recorded.revision, pause)
        } else if (title !== undefined)
          await writeVectors(tx, embedder, vectors, 'p.entry_id = $1', e.data.entryId, pause)
        break
      }
      case 'EntryMetadataReplaced':
        await refilter(tx, e.data.entryId, undefined, e.data.metadata, pause, true)
        break
      case 'EntryContentProcessed':
        // A task's result is one event: an entry is never searchable by a part of its file.
        await rewriteEntry(tx, e.data.entryId, 'body', e.data.content)
        await pause()
        await writeChunks(
          tx,
          embedder,
          vectors,
          e.data.entryId,
          e.data.content,
          e.data.chunks,
          recorded.revision,
          pause,
        )
        break
      case 'EntryDeleted':
        // Deleted content is never served again, as of any time.
        for (const table of TABLES) await tx.query(`DELETE FROM ${table}_history WHERE entry_id = $1`, [e.data.entryId])
        await deleteEntry(tx, e.data.entryId)
        break
      case 'EmbeddingsRebuilt':
        // A re-embedding: every embedded passage of the workspace gets this embedder's vector at once (a
        // search compares the vectors of one model: a part of them would hide the rest from the vector leg),
        // and so do those of its history, in parts, which an earlier model's query vectors no longer match.
        await writeVectors(tx, embedder, vectors, 'p.workspace_id = $1', e.data.workspaceId, noPause)
        await writeVectors(tx, embedder, vectors, 'p.workspace_id = $1', e.data.workspaceId, pause, true)
        return
    }
    // A chunk an edit left as it was keeps its row of history (and the revision it came with).
    if (e.type !== 'EntryDeleted')
      for (const table of TABLES) {
        await pause()
        await recordHistory(tx, table, 'entry_id', e.data.entryId, recorded.position, UNVERSIONED[table])
      }
    if (e.type !== 'EntryDeleted' && vectors) await keepReplacedVectors(tx, e.data.entryId)
    // An index outside the database gets the entry's rows as they now are.
    for (const rows of MIRRORED)
      await textIndex.mirror?.(tx, { ...rows, value: e.data.entryId, position: recorded.position })
  },
  mirrored: MIRRORED,
  afterRebuild: async (db) => {
    for (const t of MIRRORED) await textIndex.rebuild?.(db, t)
  },
  prepare: async (tx) => {
    if (!vectors) return
    await ensureVectorIndex(tx, 'kb_passages', embedder.model, embedder.dimensions)
    await ensureVectorIndex(tx, ...HISTORY_VECTORS(embedder))
  },
  afterBatch: async () => textIndex.refresh?.(['kb_chunks', 'kb_chunk_entries']),
})
