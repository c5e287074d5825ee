import type { Queryable } from '../../adapters/db'
import { entryVersion, firstContentRevisions } from '../knowledge'
import { pagination } from '../pagination'

/** Whose answers a forensic read follows: an entry served, or a member or an API key served to. */
export type Subject = { entryId: string } | { userId: string } | { keyId: string }

/** The window of serves read: from and to, both included. */
export interface Window {
  from: Date
  to: Date
}

/**
 * The events that took the subject away: an entry deleted or disabled, a member removed (which ends their OAuth
 * grants too), a key revoked (an API key, or a grant).
 */
const revocationsOf = (workspaceId: string, s: Subject) =>
  'entryId' in s
    ? {
        streams: [`entry-${s.entryId}`],
        where: "(type = 'EntryDeleted' OR (type = 'EntryUpdated' AND data->'changes'->>'isEnabled' = 'false'))",
      }
    : 'userId' in s
      ? { streams: [`member-${workspaceId}_${s.userId}`], where: "type = 'MemberRemoved'" }
      : {
          streams: [`apikey-${s.keyId}`, `oauthgrant-${s.keyId}`],
          where: "type IN ('ApiKeyRevoked', 'OAuthGrantRevoked')",
        }

/** Each event that took the subject away, oldest first: its type, position, time and who wrote it. */
export const revocations = async (db: Queryable, workspaceId: string, s: Subject) => {
  const { streams, where } = revocationsOf(workspaceId, s)
  const { rows } = await db.query<{ type: string; position: string; time: Date; actor: unknown }>(
    `SELECT type, position, time, actor FROM audit_events
     WHERE workspace_id = $1 AND stream_id = ANY($2::text[]) AND ${where} ORDER BY position`,
    [workspaceId, streams],
  )
  return rows.map((r) => ({ type: r.type, position: Number(r.position), at: r.time.toISOString(), actor: r.actor }))
}

interface ReceiptRow {
  id: string
  /** What the answer handed out: its signed token, or the record's id where it had none. */
  receipt: string
  kind: 'knowledge' | 'pages'
  query: string
  mode: string
  actor: unknown
  at: Date
  position: string
  as_of: string | null
}

interface ResultRow {
  receipt_id: string
  rank: number
  item_id: string
  version: number
  title: string | null
}

/** Receipts of the subject in the window, oldest first (serves that arrive later go after the last page). */
const receiptsOf = async (db: Queryable, workspaceId: string, s: Subject, w: Window, page: number, limit: number) => {
  const [match, value] =
    'entryId' in s
      ? [
          `r.id IN (SELECT receipt_id FROM kb_receipt_results
             WHERE workspace_id = $1 AND item_id = $2 AND at >= $3 AND at <= $4)`,
          s.entryId,
        ]
      : 'userId' in s
        ? [
            // The member's own searches, and those of the MCP clients they granted access.
            `((r.actor_id = $2 AND r.actor->>'kind' = 'human')
              OR r.actor->>'keyId' IN (SELECT id FROM oauth_grants WHERE workspace_id = $1 AND user_id = $2))`,
            s.userId,
          ]
        : ["r.actor->>'keyId' = $2", s.keyId]
  const where = `r.workspace_id = $1 AND ${match} AND r.at >= $3 AND r.at <= $4`
  const args = [workspaceId, value, w.from, w.to]
  const total = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM kb_receipts r WHERE ${where}`, args))
    .rows[0].n
  const { rows } = await db.query<ReceiptRow>(
    `SELECT r.id, coalesce(r.token, r.id) AS receipt, r.kind, r.query, r.mode, r.actor, r.at, r.position, r.as_of
     FROM kb_receipts r WHERE ${where} ORDER BY r.at, r.id LIMIT ${limit} OFFSET ${(page - 1) * limit}`,
    args,
  )
  return { rows, total }
}

/** What each receipt served, in rank order, with the title each item has now (or had when deleted). */
const resultsOf = async (db: Queryable, ids: string[]) =>
  (
    await db.query<ResultRow>(
      `SELECT x.receipt_id, x.rank, x.item_id, x.version,
         coalesce(e.title, et.title, p.title, pt.title) AS title
       FROM kb_receipt_results x JOIN kb_receipts r ON r.id = x.receipt_id
       LEFT JOIN kb_entries e ON r.kind = 'knowledge' AND e.id = x.item_id
       LEFT JOIN kb_entry_tombstones et ON r.kind = 'knowledge' AND et.id = x.item_id
       LEFT JOIN kb_pages p ON r.kind = 'pages' AND p.id = x.item_id
       LEFT JOIN kb_page_tombstones pt ON r.kind = 'pages' AND pt.id = x.item_id
       WHERE x.receipt_id = ANY($1::text[]) ORDER BY x.receipt_id, x.rank`,
      [ids],
    )
  ).rows

/**
 * Every receipt in the window that served the entry (and to whom), or that the member or the key was served (and
 * what): each with its query, mode, time, the moment it answered from, and the items it served with their versions.
 */
export const servedReceipts = async (
  db: Queryable,
  workspaceId: string,
  s: Subject,
  w: Window,
  page: number,
  limit: number,
) => {
  const { rows, total } = await receiptsOf(db, workspaceId, s, w, page, limit)
  const results = await resultsOf(
    db,
    rows.map((r) => r.id),
  )
  const ofEntries = new Set(rows.filter((r) => r.kind === 'knowledge').map((r) => r.id))
  const firsts = await firstContentRevisions(
    db,
    results.filter((x) => ofEntries.has(x.receipt_id)).map((x) => x.item_id),
  )
  const byReceipt = new Map<string, ResultRow[]>()
  for (const x of results) byReceipt.set(x.receipt_id, [...(byReceipt.get(x.receipt_id) ?? []), x])
  return {
    items: rows.map((r) => {
      const served = (byReceipt.get(r.id) ?? [])
        .filter((x) => !('entryId' in s) || x.item_id === s.entryId)
        .map((x) => ({
          ...(r.kind === 'knowledge' ? { entryId: x.item_id } : { pageId: x.item_id }),
          ...(x.title !== null ? { title: x.title } : {}),
          rank: x.rank,
          version: r.kind === 'knowledge' ? entryVersion(x.version, firsts.get(x.item_id) ?? null) : x.version,
        }))
      return {
        receiptId: r.receipt,
        kind: r.kind,
        query: r.query,
        mode: r.mode,
        actor: r.actor,
        at: r.at.toISOString(),
        position: Number(r.position),
        ...(r.as_of !== null ? { asOf: Number(r.as_of) } : {}),
        served,
      }
    }),
    pagination: pagination(page, limit, total),
  }
}
