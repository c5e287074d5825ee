import { Client } from '@elastic/elasticsearch'
import type { Queryable } from '../db'
import { searchableText } from '../text'
import { type MirrorRows, type Scope, type TextIndex, scopeSql } from './port'

/** Columns never copied to a document: term statistics, vectors and the unsearched originals. */
const NOT_COPIED = ['tf', 'title_tf', 'body_tf', 'embedding', 'content', 'metadata']

/** How many more candidates are asked for when part of the scope can only be checked in SQL. */
const OVERFETCH = 4
/** Pages of candidates read at most for one search. */
const MAX_PAGES = 10

type Filter = Record<string, unknown>

/**
 * The scope's conditions Elasticsearch can apply as `filter` clauses (a column equal to a value,
 * a true boolean column, an array column holding a value); the others are checked in SQL only.
 */
export const scopeFilters = (scope: Scope): { filters: Filter[]; complete: boolean } => {
  const filters: Filter[] = []
  let complete = true
  for (const part of scope) {
    const [condition, value] = typeof part === 'string' ? [part, true] : part
    const column =
      /^(\w+) = \?$/.exec(condition)?.[1] ??
      /^(\w+) @> ARRAY\[\?\]::text\[\]$/.exec(condition)?.[1] ??
      /^(\w+)$/.exec(condition)?.[1]
    if (column) filters.push({ term: { [column]: value } })
    else complete = false
  }
  return { filters, complete }
}

/** An index's mapping: its searched columns analysed as English text (BM25), every other string a keyword. */
export const indexMapping = (textColumns: string[]) => ({
  dynamic_templates: [{ strings: { match_mapping_type: 'string', mapping: { type: 'keyword' } } }],
  properties: Object.fromEntries(textColumns.map((c) => [c, { type: 'text', analyzer: 'english' }])),
})

/** The bulk operations writing a key's rows at `position` and removing its documents that are gone. */
export const mirrorOperations = (
  index: string,
  rows: Array<{ id: string; doc: Record<string, unknown> }>,
  existing: string[],
  position: number,
) => {
  const version = { version: position, version_type: 'external_gte' as const }
  const kept = new Set(rows.map((r) => r.id))
  return [
    ...rows.flatMap((r) => [{ index: { _index: index, _id: r.id, ...version } }, r.doc]),
    ...existing.filter((id) => !kept.has(id)).map((id) => ({ delete: { _index: index, _id: id, ...version } })),
  ]
}

/**
 * BM25 in Elasticsearch (ELASTICSEARCH_URL): one index per table (`<prefix><table>`), its text
 * columns analysed in English. Projectors write each changed key's rows as documents (`mirror`),
 * versioned by the event's position with `external_gte`, so a replay rewrites the same version and
 * never brings an older one back; `refresh` makes a batch searchable before its checkpoint commits.
 * Candidates are found by a `match` with the scope as `filter` clauses, then checked against the
 * table in the search's snapshot: a document the database no longer has is never served, and scores
 * come from the stored term frequencies as with every index.
 */
export const elasticsearchIndex = (url: string, prefix = 'kb-'): TextIndex => {
  const client = new Client({ node: url })
  const textColumns = new Map<string, Set<string>>()
  const created = new Map<string, Promise<void>>()
  const indexOf = (table: string) => `${prefix}${table}`
  const ensure = (table: string) => {
    let ready = created.get(table)
    if (!ready) {
      ready = (async () => {
        const index = indexOf(table)
        if (await client.indices.exists({ index })) return
        await client.indices
          .create({ index, mappings: indexMapping([...(textColumns.get(table) ?? [])]) as never })
          .catch((error: { meta?: { body?: { error?: { type?: string } } } }) => {
            if (error.meta?.body?.error?.type !== 'resource_already_exists_exception') throw error
          })
      })()
      ready.catch(() => created.delete(table))
      created.set(table, ready)
    }
    return ready
  }
  return {
    name: 'elasticsearch',
    indexDdl: (table, column) => {
      textColumns.set(table, new Set([...(textColumns.get(table) ?? []), column]))
      return ''
    },
    candidates: async (q: Queryable, { table, column, id = 'id', key, query, scope, limit }) => {
      const text = searchableText(query)
      if (!text) return []
      await ensure(table)
      const { filters, complete } = scopeFilters(scope)
      const s = scopeSql(scope, 2)
      const size = complete ? limit : limit * OVERFETCH
      const out: Array<{ id: string; key: string }> = []
      // A part of the scope only SQL can check (a folder) may drop most of a page: read on until
      // `limit` rows pass, or the index has no more.
      for (let from = 0; out.length < limit && from < size * MAX_PAGES; from += size) {
        const found = await client.search<Record<string, unknown>>({
          index: indexOf(table),
          from,
          size,
          _source: false,
          query: { bool: { must: [{ match: { [column]: text } }], filter: filters } },
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
    },
    mirror: async (q: Queryable, { table, id = 'id', key, value, position }: MirrorRows) => {
      await ensure(table)
      const index = indexOf(table)
      const { rows } = await q.query<{ id: string; doc: Record<string, unknown> }>(
        `SELECT ${id} AS id, to_jsonb(t) - $2::text[] AS doc FROM ${table} t WHERE ${key} = $1`,
        [value, NOT_COPIED],
      )
      // What the index holds of this key: refreshed first, so documents written by the batch count.
      await client.indices.refresh({ index })
      const existing = await client.search({
        index,
        size: 10_000,
        _source: false,
        query: { bool: { filter: [{ term: { [key]: value } }] } },
      })
      const operations = mirrorOperations(
        index,
        rows,
        existing.hits.hits.map((h) => h._id as string),
        position,
      )
      if (operations.length === 0) return
      const result = await client.bulk({ operations })
      // A version conflict is an older write than the index holds: the newer one stays, as wanted.
      const failed = result.items.flatMap((item) => Object.values(item)).filter((r) => r.error && r.status !== 409)
      if (failed.length > 0)
        throw new Error(`elasticsearch refused ${failed.length} documents: ${failed[0].error?.reason}`)
    },
    refresh: async (tables: string[]) => {
      await client.indices.refresh({ index: tables.map(indexOf), ignore_unavailable: true })
    },
    close: () => client.close(),
  }
}
