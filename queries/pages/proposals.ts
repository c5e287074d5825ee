import type { Queryable } from '../../adapters/db'
import { appended, unifiedDiff } from '../../adapters/diff'
import type { ProposalSubmitted } from '../../domain/pages/proposal'
import type { Author, Person } from '../../domain/shared'
import { pagination } from '../pagination'
import { iso, shownAuthor } from './pages'

// Read-side queries over the proposals held for review, and the JSON shape the API answers them with.

/** The page's content as a proposal would make it, from the content of the version it was made against. */
export const proposedContent = (p: Pick<ProposalSubmitted['data'], 'mode' | 'content'>, base: string) =>
  p.mode === 'append' ? appended(base, p.content) : p.content

/** A row of kb_proposals. */
export interface ProposalRow {
  id: string
  workspace_id: string
  page_id: string
  new_page: boolean
  title: string
  collection_id: string
  mode: 'create' | 'append' | 'replace'
  content: string
  base_version: number
  author: Author
  added: number
  removed: number
  status: string
  version: number | null
  decided_by: Person | null
  decided_at: Date | null
  reason: string | null
  created_at: Date
}

/** A proposal with its page name, size of change and the diff it would make to the version it was made against. */
export const proposalView = async (db: Queryable, r: ProposalRow) => {
  const base = r.new_page
    ? ''
    : ((
        await db.query<{ content: string }>(
          'SELECT content FROM kb_page_versions WHERE page_id = $1 AND version = $2',
          [r.page_id, r.base_version],
        )
      ).rows[0]?.content ?? '')
  return {
    id: r.id,
    status: r.status,
    pageId: r.page_id,
    pageTitle: r.title,
    newPage: r.new_page,
    collectionId: r.collection_id,
    mode: r.mode,
    baseVersion: r.base_version,
    author: shownAuthor(r.author),
    change: { added: r.added, removed: r.removed },
    diff: unifiedDiff(base, proposedContent(r, base), `${r.title} v${r.base_version}`, `${r.title} (proposed)`),
    createdAt: iso(r.created_at),
    ...(r.version ? { version: r.version } : {}),
    ...(r.decided_by ? { decidedBy: r.decided_by, decidedAt: iso(r.decided_at) } : {}),
    ...(r.reason ? { reason: r.reason } : {}),
  }
}

export const readProposal = async (db: Queryable, workspaceId: string, id: string) =>
  (await db.query<ProposalRow>('SELECT * FROM kb_proposals WHERE id = $1 AND workspace_id = $2', [id, workspaceId]))
    .rows[0] as ProposalRow | undefined

export const listProposals = async (
  db: Queryable,
  workspaceId: string,
  status: string | undefined,
  page: number,
  limit: number,
) => {
  const args: unknown[] = [workspaceId]
  const filter = `workspace_id = $1${status ? ` AND status = $${args.push(status)}` : ''}`
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM kb_proposals WHERE ${filter}`, args))
    .rows[0].n
  const { rows } = await db.query<ProposalRow>(
    // Newest first: a decided proposal by its decision, a pending one by when it was held.
    `SELECT * FROM kb_proposals WHERE ${filter} ORDER BY coalesce(decided_at, created_at) DESC,
      id LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    args,
  )
  return { rows, total, pagination: pagination(page, limit, total) }
}
