import type { Queryable } from '../../adapters/db'
import { changeSize } from '../../adapters/diff'
import type { Author, Person } from '../../domain/shared'
import { citedCount } from '../citedCount'
import { pagination } from '../pagination'

// Read-side queries over the pages' read models, and the JSON shapes the pages API answers.

export const iso = (d: Date | null) => (d ? d.toISOString() : null)

/**
 * A page's row with how often searches served it (projections/pages/pages.ts owns the pages' tables,
 * projections/search/served.ts the counts): the columns of PAGE.
 */
export interface PageRow {
  id: string
  workspace_id: string
  title: string
  collection_id: string | null
  version: number
  content: string
  author: Author | null
  cited_count: number
  verified_version: number | null
  verified_by: Person | null
  verified_at: Date | null
  created_at: Date
  updated_at: Date
  created_position: string
}

/** The columns of a PageRow, from kb_pages p. */
const PAGE = `p.*, ${citedCount('page', 'p.id')} AS cited_count`

/** A row of kb_page_versions. */
export interface VersionRow {
  page_id: string
  version: number
  workspace_id: string
  mode: string
  content: string
  author: Author
  approved_by: Person | null
  proposal_id: string | null
  reverted_from: number | null
  added: number
  removed: number
  created_at: Date
}

/** A row of kb_collections, with the number of pages in it. */
export interface CollectionRow {
  id: string
  workspace_id: string
  name: string
  description: string
  write_policy: string
  slug: string | null
  created_at: Date
  updated_at: Date
  page_count: number
}

export type VerificationState = 'unverified' | 'verified' | 'changed_since_verified'

export const stateOf = (r: { verified_version: number | null; version: number }): VerificationState =>
  r.verified_version === null ? 'unverified' : r.verified_version === r.version ? 'verified' : 'changed_since_verified'

/** SQL for each state, over kb_pages p. */
const STATE_SQL: Record<VerificationState, string> = {
  unverified: 'p.verified_version IS NULL',
  verified: 'p.verified_version = p.version',
  changed_since_verified: 'p.verified_version < p.version',
}

/** An author as readers see it: the API key an agent wrote with stays inside (it decides what the agent may undo). */
export const shownAuthor = <A extends Author | null>(author: A): A => {
  if (!author || author.kind !== 'agent' || author.keyId === undefined) return author
  const { keyId: _, ...shown } = author
  return shown as A
}

export const versionView = (r: VersionRow, withContent = false) => ({
  version: r.version,
  mode: r.mode,
  author: shownAuthor(r.author),
  createdAt: iso(r.created_at),
  change: { added: r.added, removed: r.removed },
  ...(r.approved_by ? { approvedBy: r.approved_by } : {}),
  ...(r.proposal_id ? { proposalId: r.proposal_id } : {}),
  ...(r.reverted_from ? { revertedFrom: r.reverted_from } : {}),
  ...(withContent ? { content: r.content } : {}),
})

/**
 * The verification chip and banner: the state; past the pin, who
 * wrote since, the size of the change since, and the citations served since the pin was set.
 */
const verificationOf = async (db: Queryable, r: PageRow) => {
  const state = stateOf(r)
  if (state === 'unverified') return { state }
  const pin = { state, verifiedVersion: r.verified_version, verifiedBy: r.verified_by, verifiedAt: iso(r.verified_at) }
  if (state === 'verified' || r.verified_version === null) return pin
  const { rows } = await db.query<{ pinned: string | null; writers: Author[] | null; citations: number }>(
    `SELECT (SELECT content FROM kb_page_versions WHERE page_id = $1 AND version = $2) AS pinned,
       (SELECT jsonb_agg(DISTINCT author - 'keyId') FROM kb_page_versions WHERE page_id = $1 AND version > $2)
         AS writers,
       (SELECT coalesce(sum(served), 0)::int FROM kb_served_page_citations WHERE page_id = $1 AND at > $3)
         AS citations`,
    [r.id, r.verified_version, r.verified_at],
  )
  const since = rows[0]
  return {
    ...pin,
    sinceVerified: {
      versions: r.version - r.verified_version,
      writers: since.writers ?? [],
      change: changeSize(since.pinned ?? '', r.content),
      citations: since.citations,
    },
  }
}

/** A page as the API shows it; verification state only when the workspace's switch is on. */
export const pageView = async (db: Queryable, r: PageRow, verification: boolean) => ({
  id: r.id,
  workspaceId: r.workspace_id,
  title: r.title,
  content: r.content,
  version: r.version,
  ...(r.collection_id ? { collectionId: r.collection_id } : {}),
  author: shownAuthor(r.author),
  citedCount: r.cited_count,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  ...(verification ? { verification: await verificationOf(db, r) } : {}),
})

export const readPage = async (db: Queryable, workspaceId: string, pageId: string) =>
  (await db.query<PageRow>(`SELECT ${PAGE} FROM kb_pages p WHERE id = $1 AND workspace_id = $2`, [pageId, workspaceId]))
    .rows[0] as PageRow | undefined

/** The page of a title, compared case-insensitively (titles are unique per workspace so). */
export const readPageByTitle = async (db: Queryable, workspaceId: string, title: string) =>
  (
    await db.query<PageRow>(`SELECT ${PAGE} FROM kb_pages p WHERE workspace_id = $1 AND lower(title) = lower($2)`, [
      workspaceId,
      title.trim(),
    ])
  ).rows[0] as PageRow | undefined

export const readVersion = async (db: Queryable, workspaceId: string, pageId: string, version: number) =>
  (
    await db.query<VersionRow>(
      'SELECT * FROM kb_page_versions WHERE page_id = $1 AND workspace_id = $2 AND version = $3',
      [pageId, workspaceId, version],
    )
  ).rows[0] as VersionRow | undefined

export interface PageListQuery {
  page: number
  limit: number
  collectionId?: string
  state?: VerificationState
  search?: string
}

/** Pages most recently written first, filtered by collection, verification state and title. */
export const listPages = async (db: Queryable, workspaceId: string, q: PageListQuery, verification: boolean) => {
  const where = ['p.workspace_id = $1']
  const args: unknown[] = [workspaceId]
  if (q.collectionId) where.push(`p.collection_id = $${args.push(q.collectionId)}`)
  if (q.state) where.push(STATE_SQL[q.state])
  if (q.search) where.push(`strpos(lower(p.title), lower($${args.push(q.search)})) > 0`)
  const filter = where.join(' AND ')
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM kb_pages p WHERE ${filter}`, args))
    .rows[0].n
  const { rows } = await db.query<PageRow>(
    `SELECT ${PAGE} FROM kb_pages p WHERE ${filter} ORDER BY p.updated_at DESC,
      p.id LIMIT ${q.limit} OFFSET ${(q.page - 1) * q.limit}`,
    args,
  )
  const items = await Promise.all(rows.map((r) => pageView(db, r, verification)))
  return { items, total, pagination: pagination(q.page, q.limit, total) }
}

export const listVersions = async (db: Queryable, pageId: string) =>
  (
    await db.query<VersionRow>('SELECT * FROM kb_page_versions WHERE page_id = $1 ORDER BY version DESC', [pageId])
  ).rows.map((r) => versionView(r))

export const collectionView = (r: CollectionRow) => ({
  id: r.id,
  workspaceId: r.workspace_id,
  name: r.name,
  description: r.description,
  writePolicy: r.write_policy,
  pageCount: r.page_count ?? 0,
  ...(r.slug ? { pack: { slug: r.slug, url: `/packs/${r.slug}` } } : {}),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
})

const COLLECTIONS = `SELECT c.*,
  (SELECT count(*)::int FROM kb_pages p WHERE p.collection_id = c.id) AS page_count FROM kb_collections c`

export const listCollections = async (db: Queryable, workspaceId: string) =>
  (
    await db.query<CollectionRow>(`${COLLECTIONS} WHERE c.workspace_id = $1 ORDER BY c.created_at, c.id`, [workspaceId])
  ).rows.map(collectionView)

export const getCollection = async (db: Queryable, workspaceId: string, id: string) => {
  const r = (await db.query<CollectionRow>(`${COLLECTIONS} WHERE c.workspace_id = $1 AND c.id = $2`, [workspaceId, id]))
    .rows[0] as CollectionRow | undefined
  return r ? collectionView(r) : undefined
}

/** The ids of the pages in a collection. */
export const pageIdsInCollection = async (db: Queryable, workspaceId: string, collectionId: string) =>
  (
    await db.query<{ id: string }>('SELECT id FROM kb_pages WHERE workspace_id = $1 AND collection_id = $2', [
      workspaceId,
      collectionId,
    ])
  ).rows.map((r) => r.id)
