import type { Client } from '../../adapters/db'
import { cachedOrPending, cachedVector, pageEmbeddingInput } from '../../adapters/embeddingCache'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { searchableText } from '../../adapters/text'
import { PAGE_STATS, countTerms, lenSql, termStatsSchema, tfSql } from '../../adapters/textIndex/terms'
import { ensureVectorIndex, vectorColumn, vectorIndexDdl } from '../../adapters/vectorIndex'
import { PageEvent } from '../../domain/pages'
import type { ChunksOptions } from './chunks'
import { type Projector, decodeEvent } from '../projector'

/** What an index outside the database holds: each page's rows. */
const MIRRORED = { table: 'kb_page_index', key: 'page_id' }

/**
 * The search index of pages: a row per page for its latest version (what the workspace's agents
 * search) and, when it differs, a row for its verified pin (what a public pack serves). Each row
 * has its BM25-indexed searchable text and its vector with the model that made it.
 */
export const pageIndexProjector = ({ embedder, vectors, textIndex }: ChunksOptions): Projector => ({
  name: 'page-index',
  version: 7,
  tables: ['kb_page_index', 'kb_page_index_pages', `${PAGE_STATS}_terms`, `${PAGE_STATS}_fields`],
  schema: `
    CREATE TABLE kb_page_index (
      id text PRIMARY KEY, page_id text NOT NULL, version integer NOT NULL, workspace_id text NOT NULL,
        collection_id text,
      title text NOT NULL, content text NOT NULL, searchable_text text NOT NULL, latest boolean NOT NULL,
        pinned boolean NOT NULL,
      tf jsonb NOT NULL, len integer NOT NULL, model text, text_hash text,
      embedding ${vectorColumn(vectors)});
    CREATE INDEX kb_page_index_page ON kb_page_index (page_id);
    CREATE INDEX kb_page_index_unembedded ON kb_page_index (text_hash) WHERE embedding IS NULL AND model IS NOT NULL;
    ${vectors ? vectorIndexDdl('kb_page_index', embedder.model, embedder.dimensions) : ''}
    ${textIndex.indexDdl('kb_page_index', 'searchable_text')}
    CREATE TABLE kb_page_index_pages (page_id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL,
      collection_id text);
    ${termStatsSchema(PAGE_STATS)}
  `,
  handles: ['PageCreated', 'PageVersionWritten', 'PageCollectionChanged', 'PageVerified', 'PageDeleted'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(PageEvent, recorded)
    switch (e.type) {
      case 'PageCreated':
        await tx.query(
          'INSERT INTO kb_page_index_pages (page_id, workspace_id, title, collection_id) VALUES ($1, $2, $3, $4) ON ' +
            'CONFLICT DO NOTHING',
          [e.data.pageId, e.data.workspaceId, e.data.title, e.data.collectionId ?? null],
        )
        break
      case 'PageVersionWritten': {
        const { pageId, version, content } = e.data
        const { rows } = await tx.query<{ title: string }>('SELECT title FROM kb_page_index_pages WHERE page_id = $1', [
          pageId,
        ])
        if (!rows[0]) return
        // The command embedded the version before writing it; a miss is filled in later, never here.
        const [hash] = await cachedOrPending(tx, embedder.model, [pageEmbeddingInput(rows[0].title, content)])
        await countTerms(
          tx,
          PAGE_STATS,
          `added AS (
            INSERT INTO kb_page_index (id, page_id, version, workspace_id, collection_id, title, content,
              searchable_text, latest, pinned, tf, len, model, text_hash, embedding)
            SELECT $1 || ':' || $2::int, $1, $2::int, workspace_id, collection_id, title, $3, $4,
              NOT EXISTS (SELECT 1 FROM kb_page_index WHERE page_id = $1 AND version > $2::int), false, t.tf,
              ${lenSql('t.tf')}, $5, $6, ${cachedVector('$5', '$6', vectors)}
            FROM kb_page_index_pages, (SELECT ${tfSql('$4::text')} AS tf) t WHERE page_id = $1 ON CONFLICT DO NOTHING
            RETURNING workspace_id, tf, len)`,
          pageFields('added', 1),
          [pageId, version, content, searchableText(`${rows[0].title}\n${content}`), embedder.model, hash],
        )
        await tx.query('UPDATE kb_page_index SET latest = false WHERE page_id = $1 AND version < $2', [pageId, version])
        // A version with the pinned version's content carries the pin (domain/pages/page.ts, carriesPin).
        await tx.query(
          `UPDATE kb_page_index SET pinned = (version = $2) WHERE page_id = $1
             AND EXISTS (SELECT 1 FROM kb_page_index WHERE page_id = $1 AND pinned AND version < $2 AND content = $3)`,
          [pageId, version, content],
        )
        await dropUnserved(tx, pageId)
        break
      }
      case 'PageVerified':
        // Pins only move forward: applied again after its pin was carried on, an older one changes nothing.
        await tx.query(
          `UPDATE kb_page_index SET pinned = (version = $2) WHERE page_id = $1
             AND NOT EXISTS (SELECT 1 FROM kb_page_index WHERE page_id = $1 AND pinned AND version > $2)`,
          [e.data.pageId, e.data.version],
        )
        await dropUnserved(tx, e.data.pageId)
        break
      case 'PageCollectionChanged':
        await tx.query('UPDATE kb_page_index_pages SET collection_id = $2 WHERE page_id = $1', [
          e.data.pageId,
          e.data.collectionId,
        ])
        await tx.query('UPDATE kb_page_index SET collection_id = $2 WHERE page_id = $1', [
          e.data.pageId,
          e.data.collectionId,
        ])
        break
      case 'PageDeleted':
        await countTerms(
          tx,
          PAGE_STATS,
          'gone AS (DELETE FROM kb_page_index WHERE page_id = $1 RETURNING workspace_id, tf, len)',
          pageFields('gone', -1),
          [e.data.pageId],
        )
        await tx.query('DELETE FROM kb_page_index_pages WHERE page_id = $1', [e.data.pageId])
        break
    }
    // An index outside the database gets the page's rows as they now are.
    await textIndex.mirror?.(tx, { ...MIRRORED, value: e.data.pageId, position: recorded.position })
  },
  mirrored: [MIRRORED],
  afterRebuild: async (db) => textIndex.rebuild?.(db, MIRRORED),
  prepare: async (tx) => {
    if (vectors) await ensureVectorIndex(tx, 'kb_page_index', embedder.model, embedder.dimensions)
  },
  afterBatch: async () => textIndex.refresh?.(['kb_page_index']),
})

/** Page versions' statistics rows (a CTE's name), for countTerms. */
const pageFields = (rows: string, sign: 1 | -1) =>
  `SELECT workspace_id, 'page' AS field, tf, len, ${sign} AS sign FROM ${rows}`

/** Versions neither latest nor pinned are never served: they leave the index. */
const dropUnserved = (tx: Client, pageId: string) =>
  countTerms(
    tx,
    PAGE_STATS,
    'gone AS (DELETE FROM kb_page_index WHERE page_id = $1 AND NOT latest AND NOT pinned RETURNING workspace_id, tf, ' +
      'len)',
    pageFields('gone', -1),
    [pageId],
  )
