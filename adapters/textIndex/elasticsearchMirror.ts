import type { Client } from '@elastic/elasticsearch'
import type { Queryable } from '../db'
import { DependencyUnavailable } from '../unavailable'
import { buildingIndices, mirrorStartSql } from './elasticsearchBuild'
import { NOT_COPIED, aliasOf, mirrorOperations, refusals } from './elasticsearchRequests'
import type { MirrorRows } from './port'

/** A key's writes waiting for the batch's end. */
interface Pending {
  /** The documents the key had before the batch (as recorded in the database). */
  before: string[]
  /** Its rows as the batch's last event left them. */
  rows: Array<{ id: string; doc: Record<string, unknown> }>
  position: number
}

export interface MirrorDeps {
  client: Client
  call: <T>(request: () => Promise<T>) => Promise<T>
  prefix: string
  throwRefusals: (refused: ReturnType<typeof refusals>) => void
  /** A table whose alias is missing (its index deleted from outside): built again. */
  missing: (table: string) => void
}

/**
 * A batch's writes to Elasticsearch, gathered by `gather` (called for each event, in the batch's
 * transaction) and sent in one bulk request by `send` (once a batch, in the same transaction, before its
 * checkpoint commits), with the record of each key's documents.
 *
 * A key changed by several events of a batch is sent once, as the last left it, at its position, deleting
 * what it had before the batch. A batch whose transaction failed before `send` leaves its keys here: the
 * batch applied again (the runner's retry, or the projector's wait) gathers the same keys, which replace
 * them; a `send` with nothing gathered since the last drops them. A `send` that fails drops its writes
 * (its transaction rolls back, and the batch is applied again).
 */
export const mirrorBatches = (deps: MirrorDeps) => {
  const pending = new Map<string, Map<string, Pending>>()
  /** The batch's transaction: where the build state is read and the record written. */
  let current: Queryable | undefined

  const gather = async (q: Queryable, { table, id = 'id', key, value, position }: MirrorRows) => {
    // The table's mirror lock, held until the transaction ends: a build of the table waits for it before
    // copying the rows (./elasticsearchBuild.ts). Taken before anything the batch reads of the build state.
    const { rows: start } = await q.query<{ schema: string }>(mirrorStartSql, [table])
    // A rebuild's tables (another schema) reach the index once swapped in, when it is built from them.
    if (start[0].schema !== 'public') return
    const { rows } = await q.query<{ before: string[] | null; id: string | null; doc: Record<string, unknown> }>(
      `SELECT m.ids AS before, r.id, r.doc FROM (SELECT 1) one
       LEFT JOIN public.es_mirrored m ON m.table_name = $2 AND m.key = $3
       LEFT JOIN LATERAL (SELECT t.${id} AS id, to_jsonb(t) - $1::text[] AS doc FROM ${table} t
         WHERE t.${key} = $3) r ON true
       ORDER BY r.id`,
      [NOT_COPIED, table, value],
    )
    const byKey = pending.get(table) ?? new Map<string, Pending>()
    pending.set(table, byKey)
    const docs = rows.flatMap((r) => (r.id === null ? [] : [{ id: r.id, doc: r.doc }]))
    byKey.set(value, { before: byKey.get(value)?.before ?? rows[0].before ?? [], rows: docs, position })
    current = q
  }

  /** Sends the writes gathered for these tables, to their aliases and to each index being built. */
  const send = async (tables: string[]) => {
    const writes = tables.flatMap((table) => [...(pending.get(table) ?? [])].map(([key, p]) => ({ table, key, ...p })))
    for (const table of tables) pending.delete(table)
    // Writes gathered by no batch since the last send are a failed transaction's: dropped.
    const q = current
    current = undefined
    if (writes.length === 0 || !q) return
    // Read in the batch's transaction, after its lock: a build recorded later waits for this batch to end.
    const building = await buildingIndices(q, tables)
    const operations = writes.flatMap((w) => {
      const alias = aliasOf(deps.prefix, w.table)
      return mirrorOperations([alias, ...(building.get(w.table) ?? [])], w.rows, w.before, w.position, alias)
    })
    if (operations.length > 0) {
      const result = await deps.call(() => deps.client.bulk({ operations }))
      const refused = refusals(result.items)
      // Through the alias, a write never makes an index of its own: a missing alias (the index deleted from
      // outside) is refused, and the projector waits while the index is built again.
      if (refused.some((r) => r.status === 404)) {
        for (const table of tables) deps.missing(table)
        throw new DependencyUnavailable(
          'Elasticsearch',
          `the index of ${tables.join(', ')} is missing; it is being built again`,
        )
      }
      deps.throwRefusals(refused)
    }
    await q.query(
      `INSERT INTO public.es_mirrored (table_name, key, ids)
       SELECT w->>'table', w->>'key', ARRAY(SELECT jsonb_array_elements_text(w->'ids'))
       FROM jsonb_array_elements($1::jsonb) w
       ON CONFLICT (table_name, key) DO UPDATE SET ids = EXCLUDED.ids`,
      [JSON.stringify(writes.map((w) => ({ table: w.table, key: w.key, ids: w.rows.map((r) => r.id) })))],
    )
  }

  return { gather, send }
}
