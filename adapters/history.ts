/**
 * The read models' histories (projections/history.ts) hold every row a table held, each with the log
 * positions between which it was current: from `valid_from` up to, not including, `valid_to` (null
 * while it still is).
 */
import type { Scope } from './textIndex/port'

/** The condition that a history row (of `alias`, if given) was current at a log position. */
export const currentAt = (position: number, alias?: string) => {
  const p = alias ? `${alias}.` : ''
  const at = Math.trunc(position)
  return `${p}valid_from <= ${at} AND (${p}valid_to IS NULL OR ${p}valid_to > ${at})`
}

/** The condition that no row of a history opened after a log position for the id of `alias`'s row. */
export const unchangedSince = (history: string, position: number, alias: string) =>
  `NOT EXISTS (SELECT 1 FROM ${history} o WHERE o.id = ${alias}.id AND o.valid_from > ${Math.trunc(position)})`

/** A scope over a history as of `at` (none: over the table of now): its conditions, and that a row was current then. */
export const scopeAt = (scope: Scope, at?: number): Scope => (at === undefined ? scope : [...scope, currentAt(at)])
