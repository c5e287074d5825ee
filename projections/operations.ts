import type { Logger } from 'pino'
import type { Database } from '../adapters/db'
import type { EventStore } from '../adapters/eventstore/port'
import type { Projector } from './projector'
import { type RebuildReport, rebuildProjector } from './rebuild'

export interface ProjectionStatus {
  name: string
  position: number
  lag: number
  state?: string
  error?: unknown
}

/**
 * Each projector's checkpoint and how far it is behind the head of the log. A running projector's
 * position is the one it reached in memory: its checkpoint row follows events it does not handle
 * only from time to time (projections/runner.ts), and those leave its tables as they are.
 */
export const projectionStatus = async (
  db: Database,
  store: EventStore,
  projectors: Projector[],
  live?: Map<string, { state: string; position: number; error?: unknown }>,
) => {
  const head = await store.headPosition()
  const { rows } = await db.pool.query<{ name: string; position: number }>(
    'SELECT name, position FROM projection_checkpoints',
  )
  const positions = new Map(rows.map((r) => [r.name, r.position]))
  const list: ProjectionStatus[] = projectors.map((p) => {
    const { position: reached = 0, ...status } = live?.get(p.name) ?? {}
    const position = Math.max(positions.get(p.name) ?? 0, reached)
    return { name: p.name, position, lag: Math.max(0, head - position), ...status }
  })
  return { head, projections: list }
}

/** Which projectors a name selects: one by name, or 'all'; undefined for an unknown name. */
export const selectProjectors = (projectors: Projector[], name: string) =>
  name === 'all'
    ? projectors
    : projectors.some((p) => p.name === name)
      ? projectors.filter((p) => p.name === name)
      : undefined

export const rebuild = async (
  db: Database,
  store: EventStore,
  selected: Projector[],
  log: Logger,
): Promise<RebuildReport[]> => {
  const reports: RebuildReport[] = []
  for (const p of selected) reports.push(await rebuildProjector(db, store, p, log))
  return reports
}
