import type { Client } from '../adapters/db'
import { embedCached } from '../adapters/embeddingCache'
import type { Embedder } from '../adapters/embedders/port'
import type { RecordedEvent } from '../adapters/eventstore/port'
import { searchableText } from '../adapters/text'
import type { ChunkSpans, EntryEvent } from '../domain/entry'
import type { Projector } from './projector'

/**
 * Chunks of each entry's content with their vectors (pgvector, or real[] where the server has no
 * pgvector) and the model that made them, cut where the entry's events say. Chunk ids are `<entryId>:<index>`, so replaying an
 * entry's events rewrites the same rows. Vectors come from the embedding cache: the command that
 * wrote the content embedded it already, and a rebuild never embeds twice.
 */
export const chunksProjector = (embedder: Embedder, vectors: boolean): Projector => ({
  name: 'chunks',
  version: 1,
  tables: ['kb_chunks', 'kb_entry_chunking'],
  schema: `
    CREATE TABLE kb_chunks (
      id text PRIMARY KEY, entry_id text NOT NULL, workspace_id text NOT NULL, chunk_index integer NOT NULL,
      content text NOT NULL, searchable_text text NOT NULL, start_offset integer NOT NULL, end_offset integer NOT NULL,
      token_count integer NOT NULL, page_url text, model text, embedding ${vectors ? 'vector(1536)' : 'real[]'});
    CREATE INDEX kb_chunks_entry ON kb_chunks (entry_id, chunk_index);
    CREATE INDEX kb_chunks_workspace ON kb_chunks (workspace_id);
    CREATE TABLE kb_entry_chunking (entry_id text PRIMARY KEY, workspace_id text NOT NULL, chunking jsonb NOT NULL, embed boolean NOT NULL);
  `,
  handles: ['EntryCreated', 'EntryUpdated', 'EntryDeleted'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = { type: recorded.type, data: recorded.data } as EntryEvent
    switch (e.type) {
      case 'EntryCreated':
        await tx.query(
          `INSERT INTO kb_entry_chunking (entry_id, workspace_id, chunking, embed) VALUES ($1, $2, $3, $4)
           ON CONFLICT (entry_id) DO UPDATE SET chunking = EXCLUDED.chunking, embed = EXCLUDED.embed`,
          [e.data.entryId, e.data.workspaceId, JSON.stringify(e.data.chunking), e.data.embed],
        )
        await writeChunks(tx, embedder, vectors, e.data.entryId, e.data.workspaceId, e.data.content, e.data.chunks, e.data.embed)
        return
      case 'EntryUpdated': {
        const { content, chunks } = e.data.changes
        if (content === undefined || chunks === undefined) return
        const { rows } = await tx.query<{ workspace_id: string; embed: boolean }>('SELECT workspace_id, embed FROM kb_entry_chunking WHERE entry_id = $1', [e.data.entryId])
        if (rows[0]) await writeChunks(tx, embedder, vectors, e.data.entryId, rows[0].workspace_id, content, chunks, rows[0].embed)
        return
      }
      case 'EntryDeleted':
        await tx.query('DELETE FROM kb_chunks WHERE entry_id = $1', [e.data.entryId])
        await tx.query('DELETE FROM kb_entry_chunking WHERE entry_id = $1', [e.data.entryId])
        return
    }
  },
})

const writeChunks = async (tx: Client, embedder: Embedder, pgvector: boolean, entryId: string, workspaceId: string, content: string, spans: ChunkSpans, embed: boolean) => {
  const chunks = spans.map((s, index) => ({ ...s, index, text: content.slice(s.start, s.end) }))
  const vectors = embed ? await embedCached(tx, embedder, chunks.map((c) => c.text)) : []
  await tx.query('DELETE FROM kb_chunks WHERE entry_id = $1', [entryId])
  if (chunks.length === 0) return
  await tx.query(
    `INSERT INTO kb_chunks (id, entry_id, workspace_id, chunk_index, content, searchable_text, start_offset, end_offset, token_count, model, embedding)
     SELECT $1 || ':' || i, $1, $2, i, c, s, so, eo, tc, $3, v::${pgvector ? 'vector' : 'real[]'}
     FROM unnest($4::int[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[], $10::text[]) AS x(i, c, s, so, eo, tc, v)`,
    [
      entryId,
      workspaceId,
      embed ? embedder.model : null,
      chunks.map((c) => c.index),
      chunks.map((c) => c.text),
      chunks.map((c) => searchableText(c.text)),
      chunks.map((c) => c.start),
      chunks.map((c) => c.end),
      chunks.map((c) => c.tokenCount),
      chunks.map((_, i) => (embed ? (pgvector ? `[${vectors[i].join(',')}]` : `{${vectors[i].join(',')}}`) : null)),
    ],
  )
}
