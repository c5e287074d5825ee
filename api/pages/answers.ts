import * as t from 'io-ts'
import { AsOf, Author, Deletion, Pagination } from '../answers'
import * as c from '../codecs'

// What the page routes answer, as io-ts codecs: each answer is encoded by its codec, and the
// OpenAPI document describes it from the same codec.

const d = c.described
const Change = c.object({ added: t.number, removed: t.number }, {}, 'lines added and removed')
const Person = c.object({ userId: t.string, name: t.string })

/** The verification chip (only where the workspace switched verification on). */
const Verification = c.object(
  { state: d(t.string, 'unverified, verified or changed_since_verified') },
  {
    verifiedVersion: t.union([t.number, t.null]),
    verifiedBy: t.union([Person, t.null]),
    verifiedAt: t.union([t.string, t.null]),
    sinceVerified: c.object({ versions: t.number, writers: t.array(Author), change: Change, citations: t.number }),
  },
)

export const Page = c.object(
  {
    id: t.string,
    workspaceId: t.string,
    title: t.string,
    content: t.string,
    version: t.number,
    author: t.union([Author, t.null]),
    citedCount: t.number,
    createdAt: t.string,
    updatedAt: t.string,
  },
  { collectionId: t.string, verification: Verification },
  'a page',
)

/** A page after a write, or only its id where the read models lag behind. */
export const WrittenPage = t.union([Page, c.object({ id: t.string })])

const versionFields = {
  version: t.number,
  mode: d(t.string, 'create, append, replace or revert'),
  author: t.union([Author, t.null]),
  createdAt: t.string,
  change: Change,
}
const versionOptional = { approvedBy: Person, proposalId: t.string, revertedFrom: t.number }

export const Version = c.object(versionFields, versionOptional, 'a version')

/** One version with its content, beside the page's latest version number. */
export const VersionRead = c.object(
  { id: t.string, title: t.string, latestVersion: t.number, ...versionFields, content: t.string },
  versionOptional,
)

/** A page as it stands, a past version of it, or as of a past moment (what remains of it where deleted since). */
// A union encodes with its first member that matches: the fullest shapes come first.
export const PageRead = t.union([
  Page,
  c.object(
    { id: t.string, title: t.string, latestVersion: t.number, ...versionFields, content: t.string },
    { workspaceId: t.string, asOf: AsOf, ...versionOptional },
  ),
  c.object({ id: t.string, title: t.string, deleted: Deletion, message: t.string, asOf: AsOf }),
  d(
    c.object(
      { id: t.string, title: t.string, latestVersion: t.number, version: t.number, content: t.string },
      { workspaceId: t.string, asOf: AsOf },
    ),
    'As of a moment before its first version: version 0, empty',
  ),
])

export const PageList = c.object({ items: t.array(Page), total: t.number, pagination: Pagination })
export const Versions = c.object({ pageId: t.string, title: t.string, version: t.number, versions: t.array(Version) })
export const Diff = c.object({
  pageId: t.string,
  from: t.number,
  to: t.number,
  change: Change,
  diff: d(t.string, 'A unified diff'),
})
export const Deleted = c.object({ deleted: t.literal(true), id: t.string })

export const Collection = c.object(
  {
    id: t.string,
    workspaceId: t.string,
    name: t.string,
    description: t.union([t.string, t.null]),
    writePolicy: d(t.string, 'open or hold_for_review'),
    pageCount: t.number,
    createdAt: t.string,
    updatedAt: t.string,
  },
  { pack: c.object({ slug: t.string, url: t.string }) },
  'a collection',
)
export const WrittenCollection = t.union([Collection, c.object({ id: t.string })])
export const CollectionList = c.object({ collections: t.array(Collection) })

export const Proposal = c.object(
  {
    id: t.string,
    status: d(t.string, 'pending, approved or rejected'),
    pageId: t.string,
    pageTitle: t.string,
    newPage: t.boolean,
    collectionId: t.union([t.string, t.null]),
    mode: t.string,
    baseVersion: t.number,
    author: t.union([Author, t.null]),
    change: Change,
    diff: d(t.string, 'The unified diff it would make to the version it was made against'),
    createdAt: t.string,
  },
  { version: t.number, decidedBy: Person, decidedAt: t.string, reason: t.string },
  'a proposal',
)
export const DecidedProposal = t.union([Proposal, c.object({ id: t.string })])
export const ProposalList = c.object({ items: t.array(Proposal), total: t.number, pagination: Pagination })

export const Pack = c.object({ slug: t.string, url: t.string, mcpUrl: t.string })
