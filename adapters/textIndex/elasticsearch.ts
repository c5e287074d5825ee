import { Client, errors } from '@elastic/elasticsearch'
import type { Database, Queryable } from '../db'
import type { Logger } from '../logger'
import { searchableText } from '../text'
import { DependencyUnavailable } from '../unavailable'
import { type Builder, buildIndex } from './elasticsearchBuild'
import { mirrorBatches } from './elasticsearchMirror'
import {
  aliasOf,
  buildingSchema,
  indexBody,
  isCurrent,
  mirroredSchema,
  missing,
  overloaded,
  refusals,
  refusedForLoad,
  scopeFilters,
  unreachable,
} from './elasticsearchRequests'
import { type MirroredTable, type TextIndex, scopeSql } from './port'
import { tsvectorIndex } from './tsvector'

/** How many more candidates are asked for when part of the scope can only be checked in SQL. */
const OVERFETCH = 4
/** Pages of candidates read at most for one search. */
const MAX_PAGES = 10

export interface ElasticsearchOptions {
  /** Prefix of every index and alias name. */
  prefix?: string
  /** Copies of each shard: 0 on a single node (a replica could never be assigned there). */
  replicas?: number
  /** A write's or an index build's time limit per request. */
  requestTimeoutMs?: number
  /**
   * A search's time limit: it runs inside the search's database snapshot (on PGlite, the one
   * connection), so it is short, and a search that waits longer answers from the database's own index.
   */
  searchTimeoutMs?: number
  log?: Pick<Logger, 'warn' | 'info'>
}

/**
 * Documents a bulk request refused: for the server's load or fault (429, 5xx) the batch waits and is
 * tried again (DependencyUnavailable); for themselves, the write fails.
 */
const throwRefusals = (refused: ReturnType<typeof refusals>) => {
  if (refused.length === 0) return
  const reason = `${refused.length} documents refused: ${refused[0].error?.reason}`
  if (refusedForLoad(refused).length > 0) throw new DependencyUnavailable('Elasticsearch', `overloaded: ${reason}`)
  throw new Error(`elasticsearch refused ${reason}`)
}

/**
 * BM25 in Elasticsearch (ELASTICSEARCH_URL). Each table's documents live in an index named with its
 * mapping version and built time, behind an alias named after the table; searches and writes go
 * through the alias. Projectors write each changed key's rows as documents (`mirror`), versioned by
 * the event's position (`external_gte`: a replay never brings an older version back), and delete the
 * documents the key had before (recorded in the database, in the projection's transaction); a batch's
 * writes go in one bulk request at its end (`refresh`, ./elasticsearchMirror.ts), which also makes them
 * searchable before the checkpoint commits. Candidates are checked against the table in the search's
 * snapshot, and scores come from the stored term frequencies as with every index.
 *
 * An index is built from the database's rows, and the alias moved to it, when the alias is missing
 * (first start, or deleted from outside), when it points at an older mapping, after a projection
 * rebuild, and on an operator's demand (after a database restore, whose positions restart lower);
 * the build is recorded in the database, and every process's writes meanwhile go to both indices
 * (./elasticsearchBuild.ts). While Elasticsearch cannot be reached, searches answer from
 * the database's built-in full-text index over the same rows (kept beside it) and say so, and the
 * projector waits and tries again.
 */
export const elasticsearchIndex = (url: string, options: ElasticsearchOptions = {}) => {
  const { prefix = 'kb-', replicas = 0, requestTimeoutMs = 30_000, searchTimeoutMs = 2000, log } = options
  const client = new Client({ node: url, requestTimeout: requestTimeoutMs, maxRetries: 1 })
  const builtIn = tsvectorIndex()
  const textColumns = new Map<string, Set<string>>()
  /** Tables whose index this process is building (the build's state for all processes is in the database). */
  const buildingHere = new Set<string>()
  let down: string | undefined
  /** Whether what keeps it down is its load (429) rather than its absence. */
  let overloadedNow = false
  /** The database and the tables `open` was given: an index found missing later is built again from them. */
  let opened: { db: Database; tables: Map<string, MirroredTable> } | undefined

  /** A request; an unreachable server is a DependencyUnavailable, and is remembered until one succeeds. */
  const call = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      const answer = await request()
      if (down) log?.info('Elasticsearch answers again')
      down = undefined
      return answer
    } catch (error) {
      if (!unreachable(error)) throw error
      down = (error as Error).message
      overloadedNow = error instanceof errors.ResponseError && overloaded(error.statusCode)
      throw new DependencyUnavailable('Elasticsearch', down)
    }
  }

  /** The concrete index behind a table's alias, if any. */
  const behind = async (table: string) => {
    try {
      return Object.keys(await call(() => client.indices.getAlias({ name: aliasOf(prefix, table) })))[0]
    } catch (error) {
      if (missing(error)) return undefined
      throw error
    }
  }

  const builder: Builder = {
    client,
    call,
    prefix,
    body: (table, columns) => indexBody(columns, textColumns.get(table) ?? new Set(), replicas),
    behind,
    throwRefusals,
    log,
  }
  /** Builds a table's index (./elasticsearchBuild.ts); one at a time per table in this process. */
  const rebuildIndex = async (db: Database, t: MirroredTable) => {
    buildingHere.add(t.table)
    try {
      await buildIndex(builder, db, t)
    } finally {
      buildingHere.delete(t.table)
    }
  }

  /** A table's index made current: built from the rows where the alias is missing or on an older mapping. */
  const ready = async (t: MirroredTable) => {
    const current = await behind(t.table).catch(() => 'unreachable')
    if (current === 'unreachable' || (current && isCurrent(prefix, t.table, current))) return
    if (buildingHere.has(t.table) || !opened) return
    await rebuildIndex(opened.db, t)
  }

  const batches = mirrorBatches({
    client,
    call,
    prefix,
    throwRefusals,
    missing: (table) => {
      const t = opened?.tables.get(table)
      if (t && !buildingHere.has(table)) void ready(t).catch(() => undefined)
    },
  })

  const index: TextIndex & {
    /** Why Elasticsearch is not answering, while it is not. */
    readonly down: string | undefined
  } = {
    get name() {
      return down ? `tsvector (Elasticsearch ${overloadedNow ? 'overloaded' : 'unreachable'})` : 'elasticsearch'
    },
    get down() {
      return down
    },
    // The database keeps its own full-text index of the same column: searches fall back to it.
    indexDdl: (table, column) => {
      textColumns.set(table, new Set([...(textColumns.get(table) ?? []), column]))
      return builtIn.indexDdl(table, column)
    },
    candidates: async (q, params) => {
      const text = searchableText(params.query)
      if (!text) return []
      try {
        return await esCandidates(q, params, text)
      } catch (error) {
        if (!(error instanceof DependencyUnavailable)) throw error
        return builtIn.candidates(q, params)
      }
    },
    mirror: (q, rows) => batches.gather(q, rows),
    refresh: async (tables: string[]) => {
      await batches.send(tables)
      await call(() =>
        client.indices.refresh({ index: tables.map((t) => aliasOf(prefix, t)), ignore_unavailable: true }),
      )
    },
    open: async (db, tables) => {
      opened = { db, tables: new Map(tables.map((t) => [t.table, t])) }
      await db.pool.query(`${mirroredSchema}; ${buildingSchema}`)
      for (const t of tables) await ready(t)
    },
    rebuild: (db, t: MirroredTable) => rebuildIndex(db, t),
    close: () => client.close(),
  }

  const esCandidates = async (q: Queryable, params: Parameters<TextIndex['candidates']>[1], text: string) => {
    const { table, column, id = 'id', key, scope, limit } = params
    const { filters, complete } = scopeFilters(scope)
    const s = scopeSql(scope, 2)
    const size = complete ? limit : limit * OVERFETCH
    const out: Array<{ id: string; key: string }> = []
    // A part of the scope only SQL can check (a folder) may drop most of a page: read on until
    // `limit` rows pass, or the index has no more.
    for (let from = 0; out.length < limit && from < size * MAX_PAGES; from += size) {
      const found = await call(() =>
        client.search(
          {
            index: aliasOf(prefix, table),
            from,
            size,
            _source: false,
            query: { bool: { must: [{ match: { [column]: text } }], filter: filters } },
          },
          { requestTimeout: searchTimeoutMs, maxRetries: 0 },
        ),
      ).catch((error) => {
        // No index yet (it is being built): the database's own index answers meanwhile.
        if (missing(error)) throw new DependencyUnavailable('Elasticsearch', `the index of ${table} is missing`)
        throw error
      })
      const ids = found.hits.hits.map((h) => h._id as string)
      if (ids.length === 0) break
      const { rows } = await q.query<{ id: string; key: string }>(
        `SELECT ${id} AS id, ${key} AS key FROM ${table} WHERE ${id} = ANY($1::text[])${s.sql}`,
        [ids, ...s.args],
      )
      const byId = new Map(rows.map((r) => [r.id, r]))
      out.push(...ids.flatMap((i) => byId.get(i) ?? []))
      if (ids.length < size) break
    }
    return out.slice(0, limit)
  }

  return index
}
