import * as E from 'fp-ts/Either'
import type { Queryable } from '../adapters/db'
import type { EventStore } from '../adapters/eventstore/port'
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
 * The workspace's last event at or before the asked moment, from its audit trail (nothing asked,
 * nothing answered). A time to come, or a position past the log's end, is no past moment.
 */
export const resolveAsOf = async (
  q: Queryable,
  log: Pick<EventStore, 'headPosition'>,
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
  const { rows } = await q.query<{ position: string; time: Date }>(
    'time' in asked
      ? `SELECT position, time FROM audit_events WHERE workspace_id = $1 AND time <= $2
         ORDER BY time DESC, position DESC LIMIT 1`
      : `SELECT position, time FROM audit_events WHERE workspace_id = $1 AND position <= $2
         ORDER BY position DESC LIMIT 1`,
    [workspaceId, 'time' in asked ? asked.time : asked.position],
  )
  return E.right(
    rows[0] ? { position: Number(rows[0].position), time: rows[0].time.toISOString() } : { position: 0, time: null },
  )
}

/** The condition that a history row (of `alias`, if given) was current at a log position. */
export const currentAt = (position: number, alias?: string) => {
  const p = alias ? `${alias}.` : ''
  const at = Math.trunc(position)
  return `${p}valid_from <= ${at} AND (${p}valid_to IS NULL OR ${p}valid_to > ${at})`
}
