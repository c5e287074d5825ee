import type { Client } from '@elastic/elasticsearch'
import { type Database, type Queryable, inTransaction } from '../db'
import type { Logger } from '../logger'
import {
  type Column,
  NOT_COPIED,
  aliasOf,
  buildingSchema,
  indexNameOf,
  mirrorOperations,
  mirroredSchema,
  refusals,
} from './elasticsearchRequests'
import type { MirroredTable } from './port'

/** Rows copied at once when an index is built from the database. */
const BUILD_PAGE = 500

/**
 * A build whose record has not been touched for this long is taken for dead (its process stopped):
 * writers stop sending to its index, and the build itself, if it still runs, gives up.
 */
const STALE = "interval '10 minutes'"

/**
 * The lock between a table's index build and the transactions that mirror writes of it (per table,
 * `$1` its name): mirror batches hold it shared until they end, a build takes it exclusive.
 */
const buildLock = (mode: 'shared' | 'exclusive') =>
  `pg_advisory_xact_lock${mode === 'shared' ? '_shared' : ''}(hashtext('kb-es-build'), hashtext($1))`

/** The first statement of each mirror: the lock, and whether the rows are in service (public) or a rebuild's. */
export const mirrorStartSql = `SELECT current_schema() AS schema, ${buildLock('shared')} AS locked`

/** The indices being built for some tables ($1), as every process sees them: a write goes to them too. */
export const buildingIndices = async (q: Queryable, tables: string[]) => {
  const { rows } = await q.query<{ table_name: string; index_name: string }>(
    `SELECT table_name, index_name FROM public.es_building
     WHERE table_name = ANY($1::text[]) AND heartbeat_at > now() - ${STALE}`,
    [tables],
  )
  const out = new Map<string, string[]>()
  for (const r of rows) out.set(r.table_name, [...(out.get(r.table_name) ?? []), r.index_name])
  return out
}

/** Waits for every transaction that holds the table's mirror lock (a batch begun before now) to end. */
const drain = (db: Database, table: string) =>
  inTransaction(db.pool, (tx) => tx.query(`SELECT ${buildLock('exclusive')}`, [table]))

/**
 * Touches the build's record (it lives) and reads the projections' lowest checkpoint: the version the
 * rows read next are written at. A record gone stale means writers may have left this index out.
 */
const heartbeat = async (q: Queryable, index: string) => {
  const { rows } = await q.query<{ p: string; alive: number }>(
    `WITH beat AS (UPDATE public.es_building SET heartbeat_at = now()
       WHERE index_name = $1 AND heartbeat_at > now() - ${STALE} RETURNING 1)
     SELECT (SELECT coalesce(min(position), 0) FROM projection_checkpoints) AS p,
       (SELECT count(*)::int FROM beat) AS alive`,
    [index],
  )
  if (rows[0].alive === 0) throw new Error(`the build of ${index} lost its record: writes may have missed it`)
  return Number(rows[0].p)
}

export interface Builder {
  client: Client
  /** A request to Elasticsearch, its unreachability a DependencyUnavailable. */
  call: <T>(request: () => Promise<T>) => Promise<T>
  prefix: string
  /** The new index's settings and mappings, from the table's columns. */
  body: (table: string, columns: Column[]) => object
  /** The index behind the table's alias, if any. */
  behind: (table: string) => Promise<string | undefined>
  /** Throws for documents a bulk request refused. */
  throwRefusals: (refused: ReturnType<typeof refusals>) => void
  log?: Pick<Logger, 'warn' | 'info'>
}

/**
 * Builds a table's index from its rows, page by page with no transaction open, then moves the alias to it
 * and deletes the former index. Each page is written at a version no later than the rows it read (the
 * projections' lowest checkpoint, read before the page): a change projected meanwhile, written to both
 * indices at its own position, wins.
 *
 * Every process that projects must write to the new index while it is built, so the build is recorded in
 * the database (es_building), which each mirror batch reads before it sends its writes. A batch that read
 * it before the record existed, and is still open, would be missed by both: its rows are not committed
 * for the copy to read, and its writes go to the alias only. So the copy starts only once every such
 * batch has ended: a batch takes the table's advisory lock shared at its first write of it, before it reads
 * the build state, and holds it until it ends; the build takes it exclusive once its record is committed.
 * A batch either sees the record or is waited for. Waiting is chosen over copying again the rows changed
 * since the start: it costs the build at most one batch's time, and needs no record of which rows changed
 * (on PGlite, whose one connection a batch holds to its end, the wait is already there).
 */
export const buildIndex = async (es: Builder, db: Database, { table, id = 'id', key = id }: MirroredTable) => {
  const index = indexNameOf(es.prefix, table, Date.now())
  await db.pool.query(`${mirroredSchema}; ${buildingSchema}`)
  const { rows: columns } = await db.pool.query<Column>(
    `SELECT column_name AS name, data_type AS type FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  )
  await es.call(() => es.client.indices.create({ index, ...es.body(table, columns) }))
  let recorded = false
  let former: string | undefined
  try {
    const { rows: dead } = await db.pool.query<{ index_name: string[] | null }>(
      `WITH dead AS (DELETE FROM public.es_building WHERE table_name = $1 AND heartbeat_at <= now() - ${STALE}
         RETURNING index_name)
       INSERT INTO public.es_building (index_name, table_name) VALUES ($2, $1)
       RETURNING (SELECT array_agg(index_name) FROM dead) AS index_name`,
      [table, index],
    )
    recorded = true
    if (dead[0].index_name) es.log?.warn({ table, indices: dead[0].index_name }, 'builds that stopped were forgotten')
    await drain(db, table)
    for (let after = ''; ; ) {
      const at = await heartbeat(db.pool, index)
      const { rows } = await db.pool.query<{ id: string; doc: Record<string, unknown> }>(
        `SELECT ${id} AS id, to_jsonb(t) - $1::text[] AS doc FROM ${table} t WHERE ${id} > $2
         ORDER BY ${id} LIMIT ${BUILD_PAGE}`,
        [NOT_COPIED, after],
      )
      if (rows.length === 0) break
      const result = await es.call(() => es.client.bulk({ operations: mirrorOperations([index], rows, [], at) }))
      es.throwRefusals(refusals(result.items))
      after = rows[rows.length - 1].id
    }
    // What each key now holds, as the rows say, with no batch in flight: a batch's own record of a key,
    // written in its transaction, would otherwise be overwritten by one read before it committed.
    await inTransaction(db.pool, async (tx) => {
      await tx.query(`SELECT ${buildLock('exclusive')}`, [table])
      await tx.query(
        `DELETE FROM public.es_mirrored m WHERE table_name = $1
           AND NOT EXISTS (SELECT 1 FROM ${table} t WHERE t.${key} = m.key)`,
        [table],
      )
      await tx.query(
        `INSERT INTO public.es_mirrored (table_name, key, ids)
         SELECT $1, ${key}, array_agg(${id}) FROM ${table} GROUP BY ${key}
         ON CONFLICT (table_name, key) DO UPDATE SET ids = EXCLUDED.ids`,
        [table],
      )
      await heartbeat(tx, index)
    })
    former = await es.behind(table)
    const alias = aliasOf(es.prefix, table)
    await es.call(() => es.client.indices.refresh({ index }))
    await es.call(() =>
      es.client.indices.updateAliases({
        actions: [
          ...(former ? [{ remove: { index: former, alias } }] : []),
          { add: { index, alias, is_write_index: true } },
        ],
      }),
    )
  } catch (error) {
    // No writer may still send to the index once it is deleted: a write to a missing index would create one.
    if (recorded)
      await db.pool
        .query('DELETE FROM public.es_building WHERE index_name = $1', [index])
        .then(() => drain(db, table))
        .catch(() => undefined)
    await es.client.indices.delete({ index, ignore_unavailable: true }).catch(() => undefined)
    throw error
  }
  // The alias names the new index (whatever fails from here leaves it in service): writes reach it through
  // the alias, and the former index goes.
  await db.pool.query('DELETE FROM public.es_building WHERE index_name = $1', [index])
  const gone = former
  if (gone) await es.call(() => es.client.indices.delete({ index: gone, ignore_unavailable: true }))
  es.log?.info({ table, index, former }, 'Elasticsearch index built from the database')
}
