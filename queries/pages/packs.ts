import type { Queryable } from '../../adapters/db'

/** The collection published under a pack slug. */
export const collectionBySlug = async (db: Queryable, slug: string) =>
  (
    await db.query<{ id: string; workspace_id: string; name: string; description: string; slug: string }>(
      'SELECT id, workspace_id, name, description, slug FROM kb_collections WHERE slug = $1',
      [slug],
    )
  ).rows[0] as { id: string; workspace_id: string; name: string; description: string; slug: string } | undefined

export interface PinnedPage {
  id: string
  title: string
  version: number
  content: string
  verified_at: Date
}

/** A collection's verified pages at their pinned versions, by title; or the one a page id or title names. */
export const pinnedPages = async (db: Queryable, collectionId: string, only?: { pageId?: string; title?: string }) =>
  (
    await db.query<PinnedPage>(
      `SELECT p.id, p.title, v.version, v.content, p.verified_at FROM kb_pages p
       JOIN kb_page_versions v ON v.page_id = p.id AND v.version = p.verified_version
       WHERE p.collection_id = $1 AND p.verified_version IS NOT NULL
         AND ($2::text IS NULL OR p.id = $2) AND ($3::text IS NULL OR lower(p.title) = lower($3))
       ORDER BY lower(p.title), p.id`,
      [collectionId, only?.pageId ?? null, only?.title?.trim() ?? null],
    )
  ).rows
