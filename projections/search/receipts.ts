import * as t from 'io-ts'
import type { Client } from '../../adapters/db'
import { type RecordedEvent, actorId } from '../../adapters/eventstore/port'
import { PageSearchServed, SearchServed } from '../../domain/search'
import { type Projector, decodeEvent } from '../projector'

const Event = t.union([SearchServed, PageSearchServed])

/**
 * Answer receipts: each search as served (its query, mode, who, when, the position the read
 * models had reached, and the moment searched when that was a past one) and each result's entry or
 * page version with the SHA-256 of the text served; a public pack's distinct answers once each.
 * Only hashes: content deleted later is not kept here. Searches recorded before receipts have none.
 */
export const receiptsProjector: Projector = {
  name: 'receipts',
  version: 4,
  tables: ['kb_receipts', 'kb_receipt_results'],
  schema: `
    CREATE TABLE kb_receipts (
      id text PRIMARY KEY, workspace_id text NOT NULL, kind text NOT NULL, query text NOT NULL, mode text NOT NULL,
      actor jsonb NOT NULL, actor_id text NOT NULL, at timestamptz NOT NULL, position bigint NOT NULL,
      as_of bigint, token text);
    CREATE TABLE kb_receipt_results (
      receipt_id text NOT NULL, rank integer NOT NULL, workspace_id text NOT NULL, item_id text NOT NULL,
      version integer NOT NULL, chunk_index integer, sha256 text NOT NULL, at timestamptz NOT NULL,
      PRIMARY KEY (receipt_id, rank));
    CREATE INDEX kb_receipt_results_item ON kb_receipt_results (workspace_id, item_id, at);
    CREATE INDEX kb_receipts_actor ON kb_receipts (workspace_id, actor_id, at);
    CREATE INDEX kb_receipts_key ON kb_receipts (workspace_id, (actor->>'keyId'), at);
  `,
  handles: ['SearchServed', 'PageSearchServed'],
  async apply(tx: Client, recorded: RecordedEvent) {
    const e = decodeEvent(Event, recorded)
    const d = e.data
    const { actor, at } = recorded.metadata
    const base = { workspaceId: d.workspaceId, mode: d.mode, actor, at }
    if (e.type === 'PageSearchServed' && e.data.receipts) {
      // A public pack's distinct answers of a period, each its own receipt.
      for (const r of e.data.receipts)
        await keepReceipt(tx, {
          ...base,
          id: r.searchId,
          kind: 'pages',
          query: r.query,
          position: r.position,
          results: r.citations.map((c) => ({ item: c.pageId, version: c.version, chunk: null, sha: c.sha256 })),
        })
      return
    }
    if (d.query === undefined || d.position === undefined) return
    await keepReceipt(tx, {
      ...base,
      id: d.searchId,
      kind: e.type === 'SearchServed' ? 'knowledge' : 'pages',
      query: d.query,
      position: d.position,
      asOf: 'asOf' in d ? d.asOf : undefined,
      token: d.receipt,
      results:
        e.type === 'SearchServed'
          ? (e.data.served ?? []).map((r) => ({
              item: r.entryId,
              version: r.version,
              chunk: r.chunkIndex,
              sha: r.sha256,
            }))
          : e.data.citations.map((r) => ({ item: r.pageId, version: r.version, chunk: null, sha: r.sha256 ?? '' })),
    })
  },
}

interface Receipt {
  id: string
  workspaceId: string
  kind: 'knowledge' | 'pages'
  query: string
  mode: string
  actor: RecordedEvent['metadata']['actor']
  at: string
  position: number
  asOf?: number
  /** The signed token the answer handed out (searches recorded before tokens have none). */
  token?: string
  results: Array<{ item: string; version: number; chunk: number | null; sha: string }>
}

/** A receipt and its results, once (a replay, or a pack's answer served again, keeps the first). */
const keepReceipt = async (tx: Client, r: Receipt) => {
  const { rowCount } = await tx.query(
    `INSERT INTO kb_receipts (id, workspace_id, kind, query, mode, actor, actor_id, at, position, as_of, token)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
    [
      r.id,
      r.workspaceId,
      r.kind,
      r.query,
      r.mode,
      JSON.stringify(r.actor),
      actorId(r.actor),
      r.at,
      r.position,
      r.asOf ?? null,
      r.token ?? null,
    ],
  )
  if (!rowCount || r.results.length === 0) return
  await tx.query(
    `INSERT INTO kb_receipt_results (receipt_id, rank, workspace_id, item_id, version, chunk_index, sha256, at)
     SELECT $1, u.rank, $2, u.item, u.version, u.chunk, u.sha, $3
     FROM unnest($4::int[], $5::text[], $6::int[], $7::int[], $8::text[]) AS u(rank, item, version, chunk, sha)`,
    [
      r.id,
      r.workspaceId,
      r.at,
      r.results.map((_, i) => i + 1),
      r.results.map((x) => x.item),
      r.results.map((x) => x.version),
      r.results.map((x) => x.chunk),
      r.results.map((x) => x.sha),
    ],
  )
}
