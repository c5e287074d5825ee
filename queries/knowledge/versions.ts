import type { Queryable } from '../../adapters/db'

/**
 * An entry's version as people and agents see it: 1 for its first content, whether the entry was
 * made with it (text) or filled by its task (a URL, a file), and one more for each revision of its
 * stream since. The log counts revisions from 0 and an entry made from a URL or a file starts empty,
 * so the revision alone would cite a text entry's first content as version 0 and a file's as 1.
 * The read model keeps each entry's first content revision (null until it has content).
 */
export const entryVersion = (revision: number | string, firstContentRevision: number | string | null) =>
  Number(revision) - Number(firstContentRevision ?? 0) + 1

/** Each entry's first content revision, of entries that stand and of those deleted (by id). */
export const firstContentRevisions = async (db: Queryable, entryIds: string[]) => {
  const { rows } = await db.query<{ id: string; first: number | null }>(
    `SELECT id, first_content_revision AS first FROM kb_entries WHERE id = ANY($1::text[])
     UNION ALL SELECT id, first_content_revision FROM kb_entry_tombstones WHERE id = ANY($1::text[])`,
    [entryIds],
  )
  return new Map(rows.map((r) => [r.id, r.first]))
}
