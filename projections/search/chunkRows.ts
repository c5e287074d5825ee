import type { Client, Pause } from '../../adapters/db'
import { cachedOrPending, cachedVector, embeddingInput } from '../../adapters/embeddingCache'
import type { Embedder } from '../../adapters/embedders/port'
import { searchableText } from '../../adapters/text'
import { CHUNK_STATS, countTerms, lenSql, tfSql } from '../../adapters/textIndex/terms'
import type { EntryEvent } from '../../domain/knowledge'
import { subjectOf } from '../../ingestion/headings'
import { Pace, inParts } from '../parts'
import { dropChunks } from './entryChunks'

// The rows of the knowledge search index (./chunks.ts) and their term statistics, written per entry: the
// entry's own row, its filters, its deletion, and its passages' vectors (its chunks: ./entryChunks.ts).

/** The title and body statistics rows of entry rows (a CTE's name), for countTerms. */
const entryFields = (rows: string, sign: 1 | -1, fields: Array<'title' | 'body'> = ['title', 'body']) =>
  fields
    .map((f) => `SELECT workspace_id, '${f}' AS field, ${f}_tf AS tf, ${f}_len AS len, ${sign} AS sign FROM ${rows}`)
    .join(' UNION ALL ')

/** How long rows took lately, for the parts of an entry's filters and of a re-embedding. */
const filterPace = new Pace()
const vectorPace = new Pace()

export const createEntry = async (tx: Client, d: Extract<EntryEvent, { type: 'EntryCreated' }>['data']) => {
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
export const rewriteEntry = async (tx: Client, entryId: string, field: 'title' | 'body', text: string) => {
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

/** An entry's switch and metadata on its search rows: the metadata's keys merged, or (`replace`) set whole. */
export const refilter = async (
  tx: Client,
  entryId: string,
  isEnabled: boolean | undefined,
  metadata: unknown,
  pause: Pause,
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
  // In parts, and only the rows whose filters change: a row written again is indexed again (its vector too).
  for (const table of ['kb_chunks', 'kb_passages']) {
    const { rows } = await tx.query<{ id: string }>(`SELECT id FROM ${table} WHERE entry_id = $1`, [entryId])
    await inParts(
      rows.map((r) => r.id),
      filterPace,
      pause,
      async (ids) => {
        await tx.query(
          `UPDATE ${table} c SET is_enabled = x.is_enabled, category = x.category, tags = x.tags
           FROM kb_chunk_entries x WHERE x.entry_id = $1 AND c.id = ANY($2::text[])
             AND ROW(c.is_enabled, c.category, c.tags) IS DISTINCT FROM ROW(x.is_enabled, x.category, x.tags)`,
          [entryId, ids],
        )
      },
    )
  }
}

/** A deleted entry's rows: its chunks, passages and its row, with their term statistics. */
export const deleteEntry = async (tx: Client, entryId: string) => {
  await dropChunks(tx, entryId, 0)
  await countTerms(
    tx,
    CHUNK_STATS,
    'gone AS (DELETE FROM kb_chunk_entries WHERE entry_id = $1 RETURNING *)',
    entryFields('gone', -1),
    [entryId],
  )
}

/**
 * The entry's rows of passages' history whose text was replaced (no open row of the history holds
 * their passage with that text: it now holds another, or none) are marked so, and keep their vector
 * from the cache from then on, where pgvector searches it by index: a search of the past finds them
 * through their own index, and the rows whose text is still current through today's. A row that
 * closed for another reason (a switch, a tag) keeps none until its text is replaced. The open rows
 * decide, not the current table, which a replay rewrites as it was. A vector the cache lacks is set
 * by the embedding filler.
 */
export const keepReplacedVectors = (tx: Client, entryId: string) =>
  tx.query(
    `UPDATE kb_passages_history h SET replaced = true,
       closed_embedding = ${cachedVector('h.model', 'h.text_hash', true)}
     WHERE h.entry_id = $1 AND h.valid_to IS NOT NULL AND NOT h.replaced AND h.model IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM kb_passages_history o WHERE o.id = h.id AND o.valid_to IS NULL
         AND o.model = h.model AND o.text_hash = h.text_hash)`,
    [entryId],
  )

/**
 * Fresh vectors (from the cache) for the embedded passages a condition selects, all in one statement;
 * in the history, each passage with the entry's title of then.
 */
export const writeVectors = async (
  tx: Client,
  embedder: Embedder,
  pgvector: boolean,
  where: string,
  arg: string,
  pause: Pause,
  history = false,
) => {
  const [suffix, then] = history ? ['_history', ' AND x.valid_from = p.valid_from'] : ['', '']
  // The history's rows name their vectors in the cache by model and hash; replaced ones keep theirs.
  const vector = cachedVector('$1', 'u.h', pgvector)
  const embedding = !history
    ? `, embedding = ${vector}`
    : pgvector
      ? `, closed_embedding = CASE WHEN p.replaced THEN ${vector} END`
      : ''
  // Rows are named by id (in the history, and by when they became current): other writers may come
  // in at a pause. A row that has the vector already is left (applied again after a crash).
  const { rows } = await tx.query<{
    id: string
    vf: number | null
    content: string
    title: string
    heading_path: string | null
  }>(
    `SELECT p.id, ${history ? 'p.valid_from' : 'NULL::bigint'} AS vf, p.content, p.heading_path, x.title
     FROM kb_passages${suffix} p
     JOIN kb_chunk_entries${suffix} x ON x.entry_id = p.entry_id${then} WHERE ${where} AND x.embed`,
    [arg],
  )
  const hashes = await cachedOrPending(
    tx,
    embedder.model,
    rows.map((r) => embeddingInput(subjectOf(r.title, r.heading_path ?? ''), r.content)),
  )
  const named = rows.map((r, i) => ({ id: r.id, vf: r.vf, hash: hashes[i] }))
  await inParts(named, vectorPace, pause, async (part) => {
    await tx.query(
      `UPDATE kb_passages${suffix} p SET model = $1, text_hash = u.h${embedding}
       FROM unnest($2::text[], $3::bigint[], $4::text[]) AS u(id, vf, h)
       WHERE p.id = u.id${history ? ' AND p.valid_from = u.vf' : ''}
         AND (p.model IS DISTINCT FROM $1 OR p.text_hash IS DISTINCT FROM u.h)`,
      [embedder.model, part.map((r) => r.id), part.map((r) => r.vf), part.map((r) => r.hash)],
    )
  })
}
