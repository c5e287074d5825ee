import type { Queryable } from '../../adapters/db'
import { unifiedDiff } from '../../adapters/diff'
import { type Actor, type EventStore, shownActor } from '../../adapters/eventstore/port'
import { sha256Hex } from '../../adapters/text'
import { EntryEvent } from '../../domain/knowledge'
import { entries } from '../knowledge'
import { entryVersion, firstContentRevisions } from '../../queries/knowledge'
import { pieceText } from '../../ingestion/tables'
import type { ReceiptKeys } from '../../adapters/receiptKeys'
import { readClaim, signedBy } from './receiptToken'

interface ReceiptRow {
  id: string
  kind: 'knowledge' | 'pages'
  query: string
  mode: string
  actor: Actor
  at: Date
  position: number
  as_of: number | null
}

interface ResultRow {
  rank: number
  item_id: string
  version: number
  chunk_index: number | null
  sha256: string
}

/**
 * The text of an entry's chunk at a revision as it was served (with its table's header where it starts among a
 * table's rows), from the log (undefined when that content was cut by a deletion).
 */
const chunkAt = async (store: EventStore, entryId: string, revision: number, chunkIndex: number) => {
  const [recorded] = await store.readStream(entries.stream(entryId), { fromRevision: revision, maxCount: 1 })
  if (!recorded || recorded.revision !== revision) return undefined
  const decoded = EntryEvent.decode({ type: recorded.type, data: recorded.data })
  if (decoded._tag === 'Left') return undefined
  const e = decoded.right
  const held =
    e.type === 'EntryCreated' || e.type === 'EntryContentProcessed'
      ? e.data
      : e.type === 'EntryUpdated' && e.data.changes.content !== undefined && e.data.changes.chunks
        ? { content: e.data.changes.content, chunks: e.data.changes.chunks }
        : undefined
  const span = held?.chunks[chunkIndex]
  return held && span ? pieceText(held.content)(span.start, span.end) : undefined
}

type Status =
  | { status: 'current' }
  | { status: 'deleted' }
  | { status: 'changed'; currentVersion: number; diff?: string }

/**
 * Whether a served chunk still holds. `r.version` is the entry's revision as served (what records and
 * tokens keep); `shown` turns a revision into the entry's version as results show it.
 */
const entryStatus = async (
  db: Queryable,
  store: EventStore,
  r: ResultRow,
  shown: (revision: number) => number,
): Promise<Status> => {
  const { rows } = await db.query<{ content: string | null; revision: number | null }>(
    `SELECT c.content, c.revision FROM kb_entries e
     LEFT JOIN kb_chunks c ON c.entry_id = e.id AND c.chunk_index = $2 WHERE e.id = $1`,
    [r.item_id, r.chunk_index],
  )
  if (!rows[0]) return { status: 'deleted' }
  const now = rows[0].content ?? ''
  // A token keeps the hash's first bytes (./receiptToken.ts); a record keeps it whole.
  if (sha256Hex(now).startsWith(r.sha256)) return { status: 'current' }
  const { rows: latest } = await db.query<{ revision: number }>(
    'SELECT max(revision) AS revision FROM kb_chunks WHERE entry_id = $1',
    [r.item_id],
  )
  const served = await chunkAt(store, r.item_id, r.version, r.chunk_index ?? 0)
  return {
    status: 'changed',
    currentVersion: shown(Number(latest[0]?.revision ?? r.version)),
    ...(served !== undefined && sha256Hex(served).startsWith(r.sha256)
      ? { diff: unifiedDiff(served, now, `served (version ${shown(r.version)})`, 'now') }
      : {}),
  }
}

const pageStatus = async (db: Queryable, r: ResultRow): Promise<Status> => {
  const { rows } = await db.query<{ version: number; content: string }>(
    'SELECT version, content FROM kb_pages WHERE id = $1',
    [r.item_id],
  )
  if (!rows[0]) return { status: 'deleted' }
  if (rows[0].version === r.version) return { status: 'current' }
  const { rows: then } = await db.query<{ content: string }>(
    'SELECT content FROM kb_page_versions WHERE page_id = $1 AND version = $2',
    [r.item_id, r.version],
  )
  return {
    status: 'changed',
    currentVersion: rows[0].version,
    ...(then[0] ? { diff: unifiedDiff(then[0].content, rows[0].content, `v${r.version}`, `v${rows[0].version}`) } : {}),
  }
}

/** Whether each result served still holds: current, changed since (with a diff when the log has it), or deleted. */
const checkResults = async (
  deps: { db: Queryable; store: EventStore },
  kind: 'knowledge' | 'pages',
  results: ResultRow[],
) => {
  const firsts =
    kind === 'knowledge'
      ? await firstContentRevisions(
          deps.db,
          results.map((r) => r.item_id),
        )
      : new Map()
  return Promise.all(
    results.map(async (r) => {
      const shown = (revision: number) => entryVersion(revision, firsts.get(r.item_id) ?? null)
      return {
        ...(kind === 'knowledge'
          ? { entryId: r.item_id, version: shown(r.version), chunkIndex: r.chunk_index ?? 0 }
          : { pageId: r.item_id, version: r.version }),
        sha256: r.sha256,
        ...(kind === 'knowledge' ? await entryStatus(deps.db, deps.store, r, shown) : await pageStatus(deps.db, r)),
      }
    }),
  )
}

const recordOf = async (db: Queryable, workspaceId: string, id: string) =>
  (
    await db.query<ReceiptRow>(
      'SELECT id, kind, query, mode, actor, at, position, as_of FROM kb_receipts WHERE id = $1 AND workspace_id = $2',
      [id, workspaceId],
    )
  ).rows[0]

/**
 * An answer receipt: a signed token (./receiptToken.ts), or the id of a record in the log (a
 * public pack's answer, a search from before tokens). Each result as served (version and hash) and
 * whether it still holds. A token is checked against its key and needs no record: where the
 * search's record has reached the log, its query, mode and who are added. Undefined for a token
 * that is malformed, altered, signed by no key here, or another workspace's.
 */
export const readReceipt = async (
  deps: { db: Queryable; store: EventStore; receiptKeys: ReceiptKeys },
  workspaceId: string,
  id: string,
) => {
  const claim = readClaim(id)
  if (claim) {
    const key = await deps.receiptKeys.byId(claim.keyId)
    if (!key || !signedBy(id, workspaceId, key.secret)) return undefined
    const record = await recordOf(deps.db, workspaceId, claim.searchId)
    const results = claim.results.map((r, i) => ({
      rank: i + 1,
      item_id: r.id,
      version: r.version,
      chunk_index: claim.kind === 'knowledge' ? r.chunkIndex : null,
      sha256: r.sha256,
    }))
    return {
      id: claim.searchId,
      kind: claim.kind,
      ...(record ? { query: record.query, mode: record.mode, actor: shownActor(record.actor) } : {}),
      at: (record?.at ?? claim.issuedAt).toISOString(),
      position: claim.position,
      ...(claim.asOf !== undefined ? { asOf: claim.asOf } : {}),
      recorded: record !== undefined,
      results: await checkResults(deps, claim.kind, results),
    }
  }
  const receipt = await recordOf(deps.db, workspaceId, id)
  if (!receipt) return undefined
  const { rows: results } = await deps.db.query<ResultRow>(
    'SELECT rank, item_id, version, chunk_index, sha256 FROM kb_receipt_results WHERE receipt_id = $1 ORDER BY rank',
    [id],
  )
  return {
    id: receipt.id,
    kind: receipt.kind,
    query: receipt.query,
    mode: receipt.mode,
    actor: shownActor(receipt.actor),
    at: receipt.at.toISOString(),
    position: Number(receipt.position),
    ...(receipt.as_of !== null ? { asOf: Number(receipt.as_of) } : {}),
    recorded: true,
    results: await checkResults(deps, receipt.kind, results),
  }
}
