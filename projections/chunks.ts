import type { Client } from '../adapters/db'
import { cachedVector, embeddingInput, ensureEmbedded } from '../adapters/embeddingCache'
import type { Embedder } from '../adapters/embedders/port'
import type { RecordedEvent } from '../adapters/eventstore/port'
import { searchableText } from '../adapters/text'
import type { TextIndex } from '../adapters/textIndex/port'
import { hnswIndexDdl } from '../adapters/vectorIndex'
import type { EmbeddingsRebuilt } from '../domain/embeddings'
import type { ChunkSpans, EntryEvent } from '../domain/entry'
import type { Projector } from './projector'

export interface ChunksOptions {
  embedder: Embedder
  /** Whether the database has pgvector (else vectors are kept as real[] and not searched). */
  vectors: boolean
  textIndex: TextIndex
}

/**
 * Chunks of each entry's content, cut where the entry's events say, with their vectors and the
 * model that made them, and the entry facts search filters on (workspace, enabled, source,
 * category, tags), so that filters apply inside the vector and BM25 index scans. Chunk ids are
 * `<entryId>:<index>`: replaying an entry's events rewrites the same rows. Vectors come from the
 * embedding cache: the command embedded them already, and a rebuild never embeds twice.
 */
export const chunksProjector = ({ embedder, vectors, textIndex }: ChunksOptions): Projector => ({
  name: 'chunks',
  version: 5,
  tables: ['kb_chunks', 'kb_chunk_entries'],
  schema: `
    CREATE TABLE kb_chunks (
      id text PRIMARY KEY, entry_id text NOT NULL, workspace_id text NOT NULL, chunk_index integer NOT NULL,
      content text NOT NULL, searchable_text text NOT NULL, start_offset integer NOT NULL, end_offset integer NOT NULL,
      token_count integer NOT NULL, page_url text, is_enabled boolean NOT NULL, source text NOT NULL, category text,
      tags text[] NOT NULL, model text, embedding ${vectors ? 'vector(1536)' : 'real[]'});
    CREATE INDEX kb_chunks_entry ON kb_chunks (entry_id, chunk_index);
    CREATE INDEX kb_chunks_workspace ON kb_chunks (workspace_id);
    ${vectors ? hnswIndexDdl('kb_chunks') : ''}
    ${textIndex.indexDdl('kb_chunks')}
    CREATE TABLE kb_chunk_entries (
      entry_id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL, embed boolean NOT NULL, is_enabled boolean NOT NULL,
      source text NOT NULL, metadata jsonb NOT NULL);
  `,
  handles: ['EntryCreated', 'EntryUpdated', 'EntryContentProcessed', 'EntryDeleted', 'EmbeddingsRebuilt'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = { type: recorded.type, data: recorded.data } as EntryEvent | EmbeddingsRebuilt
    switch (e.type) {
      case 'EntryCreated': {
        const d = e.data
        await tx.query(
          `INSERT INTO kb_chunk_entries (entry_id, workspace_id, title, embed, is_enabled, source, metadata) VALUES ($1, $2, $3, $4, $5, $6, $7)
           ON CONFLICT (entry_id) DO NOTHING`,
          [d.entryId, d.workspaceId, d.title, d.embed, d.isEnabled, d.source, JSON.stringify(d.metadata)],
        )
        await writeChunks(tx, embedder, vectors, d.entryId, d.content, d.chunks)
        return
      }
      case 'EntryUpdated': {
        const { content, chunks, isEnabled, metadata, title } = e.data.changes
        if (isEnabled !== undefined || metadata !== undefined) {
          await tx.query(
            'UPDATE kb_chunk_entries SET is_enabled = coalesce($2, is_enabled), metadata = metadata || coalesce($3::jsonb, \'{}\'::jsonb) WHERE entry_id = $1',
            [e.data.entryId, isEnabled ?? null, metadata ? JSON.stringify(metadata) : null],
          )
          await tx.query(
            `UPDATE kb_chunks c SET is_enabled = x.is_enabled, category = x.metadata->>'category', tags = ${TAGS}
             FROM kb_chunk_entries x WHERE x.entry_id = $1 AND c.entry_id = x.entry_id`,
            [e.data.entryId],
          )
        }
        if (title !== undefined) await tx.query('UPDATE kb_chunk_entries SET title = $2 WHERE entry_id = $1', [e.data.entryId, title])
        if (content !== undefined && chunks !== undefined) await writeChunks(tx, embedder, vectors, e.data.entryId, content, chunks)
        else if (title !== undefined) await writeVectors(tx, embedder, vectors, 'c.entry_id = $1', e.data.entryId)
        return
      }
      case 'EntryContentProcessed':
        // A task's result replaces the chunks at once: a half-processed entry is never searchable.
        await writeChunks(tx, embedder, vectors, e.data.entryId, e.data.content, e.data.chunks)
        return
      case 'EntryDeleted':
        await tx.query('DELETE FROM kb_chunks WHERE entry_id = $1', [e.data.entryId])
        await tx.query('DELETE FROM kb_chunk_entries WHERE entry_id = $1', [e.data.entryId])
        return
      case 'EmbeddingsRebuilt':
        // A re-embedding: every embedded chunk of the workspace gets this embedder's vector at once.
        await writeVectors(tx, embedder, vectors, 'c.workspace_id = $1', e.data.workspaceId)
        return
    }
  },
})

/** Fresh vectors (from the cache) for the embedded chunks a condition selects, all in one statement. */
const writeVectors = async (tx: Client, embedder: Embedder, pgvector: boolean, where: string, arg: string) => {
  const { rows } = await tx.query<{ id: string; content: string; title: string }>(
    `SELECT c.id, c.content, x.title FROM kb_chunks c JOIN kb_chunk_entries x ON x.entry_id = c.entry_id WHERE ${where} AND x.embed`,
    [arg],
  )
  if (rows.length === 0) return
  const hashes = await ensureEmbedded(tx, embedder, rows.map((r) => embeddingInput(r.title, r.content)))
  await tx.query(
    `UPDATE kb_chunks c SET model = $1, embedding = ${cachedVector('$1', 'u.h', pgvector)} FROM unnest($2::text[], $3::text[]) AS u(id, h) WHERE c.id = u.id`,
    [embedder.model, rows.map((r) => r.id), hashes],
  )
}

const TAGS = "coalesce(ARRAY(SELECT jsonb_array_elements_text(x.metadata->'tags')), '{}')"

const writeChunks = async (tx: Client, embedder: Embedder, pgvector: boolean, entryId: string, content: string, spans: ChunkSpans) => {
  const { rows } = await tx.query<{ embed: boolean; title: string }>('SELECT embed, title FROM kb_chunk_entries WHERE entry_id = $1', [entryId])
  if (!rows[0]) return
  const { embed, title } = rows[0]
  const chunks = spans.map((s, index) => ({ ...s, index, text: content.slice(s.start, s.end) }))
  const hashes = embed ? await ensureEmbedded(tx, embedder, chunks.map((c) => embeddingInput(title, c.text))) : []
  await tx.query('DELETE FROM kb_chunks WHERE entry_id = $1', [entryId])
  if (chunks.length === 0) return
  await tx.query(
    `INSERT INTO kb_chunks (id, entry_id, workspace_id, chunk_index, content, searchable_text, start_offset, end_offset, token_count,
       is_enabled, source, category, tags, model, embedding, page_url)
     SELECT $1 || ':' || i, $1, x.workspace_id, i, c, s, so, eo, tc, x.is_enabled, x.source, x.metadata->>'category', ${TAGS},
       $2, ${cachedVector('$2', 'h', pgvector)}, p
     FROM unnest($3::int[], $4::text[], $5::text[], $6::int[], $7::int[], $8::int[], $9::text[], $10::text[]) AS u(i, c, s, so, eo, tc, h, p)
     JOIN kb_chunk_entries x ON x.entry_id = $1`,
    [
      entryId,
      embed ? embedder.model : null,
      chunks.map((c) => c.index),
      chunks.map((c) => c.text),
      chunks.map((c) => searchableText(c.text)),
      chunks.map((c) => c.start),
      chunks.map((c) => c.end),
      chunks.map((c) => c.tokenCount),
      chunks.map((_, i) => (embed ? hashes[i] : null)),
      chunks.map((c) => c.pageUrl ?? null),
    ],
  )
}
