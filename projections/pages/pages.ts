import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { CollectionEvent } from '../../domain/pages/collection'
import { PageEvent } from '../../domain/pages/page'
import { ProposalEvent } from '../../domain/pages/proposal'
import { assertNever } from '../../domain/shared'
import { type Projector, decodeEvent } from '../projector'

const Event = t.union([PageEvent, CollectionEvent, ProposalEvent])
type PagesEvent = t.TypeOf<typeof Event>

/**
 * The pages' read models: pages (latest content, verified pin), every version with its author and
 * size of change, collections (with the slug of their public pack) and proposals.
 */
export const pagesProjector: Projector = {
  name: 'pages',
  version: 5,
  tables: ['kb_pages', 'kb_page_versions', 'kb_page_tombstones', 'kb_collections', 'kb_proposals'],
  schema: `
    CREATE TABLE kb_pages (
      id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL, collection_id text,
        version integer NOT NULL,
      content text NOT NULL, author jsonb, verified_version integer,
        verified_by jsonb,
      verified_at timestamptz, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
      created_position bigint NOT NULL);
    CREATE INDEX kb_pages_list ON kb_pages (workspace_id, updated_at DESC, id);
    CREATE TABLE kb_page_versions (
      page_id text NOT NULL, version integer NOT NULL, workspace_id text NOT NULL, mode text NOT NULL,
        content text NOT NULL,
      author jsonb NOT NULL, approved_by jsonb, proposal_id text, reverted_from integer, added integer NOT NULL,
        removed integer NOT NULL,
      created_at timestamptz NOT NULL, position bigint NOT NULL, PRIMARY KEY (page_id, version));
    CREATE TABLE kb_page_tombstones (id text PRIMARY KEY, workspace_id text NOT NULL, title text NOT NULL,
      created_position bigint NOT NULL, deleted_position bigint NOT NULL, deleted_at timestamptz NOT NULL);
    CREATE TABLE kb_collections (
      id text PRIMARY KEY, workspace_id text NOT NULL, name text NOT NULL, description text NOT NULL,
        write_policy text NOT NULL,
      slug text UNIQUE, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
    CREATE TABLE kb_proposals (
      id text PRIMARY KEY, workspace_id text NOT NULL, page_id text NOT NULL, new_page boolean NOT NULL,
        title text NOT NULL,
      collection_id text NOT NULL, mode text NOT NULL, content text NOT NULL, base_version integer NOT NULL,
        author jsonb NOT NULL,
      added integer NOT NULL, removed integer NOT NULL, status text NOT NULL, version integer, decided_by jsonb,
        decided_at timestamptz,
      reason text, created_at timestamptz NOT NULL);
    CREATE INDEX kb_proposals_list ON kb_proposals (workspace_id, created_at DESC, id);
  `,
  handles: [
    'PageCreated',
    'PageVersionWritten',
    'PageCollectionChanged',
    'PageVerified',
    'PageDeleted',
    'CollectionCreated',
    'CollectionUpdated',
    'CollectionPublished',
    'CollectionDeleted',
    'ProposalSubmitted',
    'ProposalApproved',
    'ProposalRejected',
  ],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    const at = recorded.metadata.at
    switch (e.type) {
      case 'PageCreated':
      case 'PageVersionWritten':
      case 'PageCollectionChanged':
      case 'PageVerified':
      case 'PageDeleted':
        return applyPage(tx, e, at, recorded.position)
      case 'CollectionCreated':
      case 'CollectionUpdated':
      case 'CollectionPublished':
      case 'CollectionDeleted':
        return applyCollection(tx, e, at)
      case 'ProposalSubmitted':
      case 'ProposalApproved':
      case 'ProposalRejected':
        return applyProposal(tx, e, at)
      default:
        return assertNever(e)
    }
  },
}

/** A page and its versions. */
const applyPage = async (
  tx: Client,
  e: Extract<PagesEvent, { type: `Page${string}` }>,
  at: string,
  position: number,
) => {
  switch (e.type) {
    case 'PageCreated':
      await tx.query(
        `INSERT INTO kb_pages (id, workspace_id, title, collection_id, version, content, created_at, updated_at,
          created_position) VALUES ($1, $2, $3, $4, 0, '', $5, $5, $6) ON CONFLICT (id) DO NOTHING`,
        [e.data.pageId, e.data.workspaceId, e.data.title, e.data.collectionId ?? null, at, position],
      )
      return
    case 'PageVersionWritten': {
      const d = e.data
      await tx.query(
        `INSERT INTO kb_page_versions (page_id, version, workspace_id, mode, content, author, approved_by,
          proposal_id, reverted_from, added, removed, created_at, position)
         SELECT $1, $2, workspace_id, $3, $4, $5, $6, $7, $8, $9, $10,
           $11, $12 FROM kb_pages WHERE id = $1 ON CONFLICT DO NOTHING`,
        [
          d.pageId,
          d.version,
          d.mode,
          d.content,
          JSON.stringify(d.author),
          d.approvedBy ? JSON.stringify(d.approvedBy) : null,
          d.proposalId ?? null,
          d.revertedFrom ?? null,
          d.added,
          d.removed,
          at,
          position,
        ],
      )
      await tx.query(
        'UPDATE kb_pages SET version = $2, content = $3, author = $4, updated_at = $5 WHERE id = $1 AND version < $2',
        [d.pageId, d.version, d.content, JSON.stringify(d.author), at],
      )
      // A version with the verified version's content carries the pin (domain/pages/page.ts, carriesPin).
      await tx.query(
        `UPDATE kb_pages p SET verified_version = $2 WHERE p.id = $1 AND p.verified_version < $2
           AND $3 = (SELECT v.content FROM kb_page_versions v WHERE v.page_id = $1 AND v.version = p.verified_version)`,
        [d.pageId, d.version, d.content],
      )
      return
    }
    case 'PageCollectionChanged':
      await tx.query('UPDATE kb_pages SET collection_id = $2 WHERE id = $1', [e.data.pageId, e.data.collectionId])
      return
    case 'PageVerified':
      // A pin never moves back: a verification applied again after the pin was carried on changes nothing.
      await tx.query(
        `UPDATE kb_pages SET verified_version = $2, verified_by = $3, verified_at = $4
         WHERE id = $1 AND (verified_version IS NULL OR verified_version <= $2)`,
        [e.data.pageId, e.data.version, JSON.stringify(e.data.by), at],
      )
      return
    case 'PageDeleted':
      // A deleted page's content is served as of no time: what remains is its tombstone.
      await tx.query(
        `INSERT INTO kb_page_tombstones (id, workspace_id, title, created_position, deleted_position, deleted_at)
         SELECT id, workspace_id, title, created_position, $2, $3 FROM kb_pages WHERE id = $1 ON CONFLICT DO NOTHING`,
        [e.data.pageId, position, at],
      )
      await tx.query('DELETE FROM kb_page_versions WHERE page_id = $1', [e.data.pageId])
      await tx.query('DELETE FROM kb_pages WHERE id = $1', [e.data.pageId])
      return
  }
}

/** Collections, and the slug of their pack. */
const applyCollection = async (tx: Client, e: Extract<PagesEvent, { type: `Collection${string}` }>, at: string) => {
  switch (e.type) {
    case 'CollectionCreated': {
      const d = e.data
      await tx.query(
        `INSERT INTO kb_collections (id, workspace_id, name, description, write_policy, created_at,
          updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
         ON CONFLICT (id) DO NOTHING`,
        [d.collectionId, d.workspaceId, d.name, d.description, d.writePolicy, at],
      )
      return
    }
    case 'CollectionUpdated': {
      const c = e.data.changes
      await tx.query(
        `UPDATE kb_collections SET name = coalesce($2, name), description = coalesce($3, description),
          write_policy = coalesce($4, write_policy),
           updated_at = $5 WHERE id = $1`,
        [e.data.collectionId, c.name ?? null, c.description ?? null, c.writePolicy ?? null, at],
      )
      return
    }
    case 'CollectionPublished':
      await tx.query('UPDATE kb_collections SET slug = $2 WHERE id = $1', [e.data.collectionId, e.data.slug])
      return
    case 'CollectionDeleted':
      await tx.query('DELETE FROM kb_collections WHERE id = $1', [e.data.collectionId])
      return
  }
}

/** Proposals held for review. */
const applyProposal = async (tx: Client, e: Extract<PagesEvent, { type: `Proposal${string}` }>, at: string) => {
  switch (e.type) {
    case 'ProposalSubmitted': {
      const d = e.data
      await tx.query(
        `INSERT INTO kb_proposals (id, workspace_id, page_id, new_page, title, collection_id, mode, content,
          base_version, author, added, removed, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13) ON CONFLICT (id) DO NOTHING`,
        [
          d.proposalId,
          d.workspaceId,
          d.pageId,
          d.newPage,
          d.title,
          d.collectionId,
          d.mode,
          d.content,
          d.baseVersion,
          JSON.stringify(d.author),
          d.added,
          d.removed,
          at,
        ],
      )
      return
    }
    case 'ProposalApproved':
      await tx.query(
        `UPDATE kb_proposals SET status = 'approved', version = $2, decided_by = $3, decided_at = $4 WHERE id = $1`,
        [e.data.proposalId, e.data.version, JSON.stringify(e.data.by), at],
      )
      return
    case 'ProposalRejected':
      await tx.query(
        `UPDATE kb_proposals SET status = 'rejected', decided_by = $2, decided_at = $3, reason = $4 WHERE id = $1`,
        [e.data.proposalId, JSON.stringify(e.data.by), at, e.data.reason ?? null],
      )
      return
  }
}
