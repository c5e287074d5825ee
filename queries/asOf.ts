import * as E from 'fp-ts/Either'
import type { Queryable } from '../adapters/db'
import type { EventStore } from '../adapters/eventstore/port'
import { type VersionRow, readPage, versionView } from './pages'
import { type DomainError, fail } from '../domain/shared'

/** A past moment as a request names it: a log position, or a time. */
export type AsOfRequest = { position: number } | { time: Date }

/**
 * The moment an answer "as of" reflects: the workspace's last event at or before the one asked for
 * (its log position, and its time), or position 0 and no time where the workspace had none yet.
 * Every read as of it sees the read models' history rows current at that position
 * (projections/history.ts).
 */
export interface AsOf {
  position: number
  time: string | null
}

/**
 * The workspace's last event at or before the asked moment (nothing asked, nothing answered). The
 * event store's chain answers where it keeps one: it keeps the position and time of events whose
 * content a deletion cut, so a moment between an entry's creation and its deletion still resolves
 * to the creation. Otherwise the audit trail answers. A time to come, or a position past the log's
 * end, is no past moment. The answer waits (within the read-your-writes bound) for the read models
 * to reach the moment found.
 */
export const resolveAsOf = async (
  { db, store: log, runner, config }: AsOfDeps,
  workspaceId: string,
  asked: AsOfRequest | undefined,
): Promise<E.Either<DomainError, AsOf | undefined>> => {
  if (!asked) return E.right(undefined)
  if ('time' in asked && asked.time.getTime() > Date.now())
    return fail('VALIDATION_ERROR', 'asOf is in the future', ['asOf: a time that has passed'])
  const head = 'position' in asked ? await log.headPosition() : 0
  if ('position' in asked && asked.position > head)
    return fail('VALIDATION_ERROR', `asOf is past the end of the log (position ${head})`, [
      `asOf: a position up to ${head}`,
    ])
  const found = log.lastEventAt
    ? await log.lastEventAt(workspaceId, asked)
    : await lastAuditedAt(db.pool, workspaceId, asked)
  const asOf = found ?? { position: 0, time: null }
  await runner.waitFor(asOf.position, config.readYourWritesTimeoutMs)
  return E.right(asOf)
}

/** The last event of the workspace's audit trail at or before a moment (a trail cut by deletions). */
const lastAuditedAt = async (q: Queryable, workspaceId: string, asked: AsOfRequest) => {
  const { rows } = await q.query<{ position: string; time: Date }>(
    'time' in asked
      ? `SELECT position, time FROM audit_events WHERE workspace_id = $1 AND time <= $2
         ORDER BY time DESC, position DESC LIMIT 1`
      : `SELECT position, time FROM audit_events WHERE workspace_id = $1 AND position <= $2
         ORDER BY position DESC LIMIT 1`,
    [workspaceId, 'time' in asked ? asked.time : asked.position],
  )
  return rows[0] && { position: Number(rows[0].position), time: rows[0].time.toISOString() }
}

export interface AsOfDeps {
  db: { pool: Queryable }
  store: Pick<EventStore, 'headPosition' | 'lastEventAt'>
  /** Waits until the read models reached a position (false: not within the timeout). */
  runner: { waitFor(position: number, timeoutMs: number): Promise<boolean> }
  config: { readYourWritesTimeoutMs: number }
}

/**
 * What remains, at a log position, of entries deleted since (their content is cut): id, title, and
 * when they were deleted. `id` for one entry; otherwise all of the workspace's, newest deletion first.
 */
export const entryTombstones = async (db: Queryable, workspaceId: string, at: number, id?: string) =>
  (
    await db.query<{ id: string; title: string | null; deleted_at: Date; deleted_position: string }>(
      `SELECT id, title, deleted_at, deleted_position FROM kb_entry_tombstones
       WHERE workspace_id = $1 AND deleted_position > $2 AND (first_position IS NULL OR first_position <= $2)
         AND ($3::text IS NULL OR id = $3) ORDER BY deleted_position DESC`,
      [workspaceId, at, id ?? null],
    )
  ).rows.map((r) => ({
    id: r.id,
    title: r.title,
    deleted: { at: r.deleted_at.toISOString(), position: Number(r.deleted_position) },
  }))

/**
 * A page as it stood at a log position: its latest version written by then (version 0, empty, where
 * none was yet), or what remains of it where it was deleted since; undefined where it did not exist.
 */
export const pageAt = async (db: Queryable, workspaceId: string, pageId: string, at: number) => {
  const page = await readPage(db, workspaceId, pageId)
  if (page) {
    if (Number(page.created_position) > at) return undefined
    const { rows } = await db.query<VersionRow>(
      'SELECT * FROM kb_page_versions WHERE page_id = $1 AND position <= $2 ORDER BY version DESC LIMIT 1',
      [pageId, at],
    )
    const base = { id: page.id, workspaceId: page.workspace_id, title: page.title, latestVersion: page.version }
    return rows[0] ? { ...base, ...versionView(rows[0], true) } : { ...base, version: 0, content: '' }
  }
  const { rows } = await db.query<{ title: string; deleted_at: Date; deleted_position: string }>(
    `SELECT title, deleted_at, deleted_position FROM kb_page_tombstones
     WHERE id = $1 AND workspace_id = $2 AND created_position <= $3 AND deleted_position > $3`,
    [pageId, workspaceId, at],
  )
  const gone = rows[0]
  if (!gone) return undefined
  return {
    id: pageId,
    title: gone.title,
    deleted: { at: gone.deleted_at.toISOString(), position: Number(gone.deleted_position) },
    message: 'this page was deleted since; its content is not kept',
  }
}
