import type { Queryable } from '../db'

/**
 * BM25 scored by the service itself, from term frequencies stored with each indexed row and
 * statistics kept per workspace. The index (pg_textsearch, or built-in full-text search on a server
 * without it) only finds candidates in order; their scores come from here, so they are the same
 * whatever index found them, never depend on another workspace's text, and cost a few lookups
 * instead of reading each row's text again.
 *
 * A row stores `tf` (its lexemes, as PostgreSQL's english configuration stems them, with their
 * counts) and `len` (their sum). A projection that owns indexed rows also owns two tables of
 * statistics, `<stats>_terms` (documents per lexeme) and `<stats>_fields` (documents and total
 * length), per workspace and field; `countTerms` moves them as rows come and go.
 */

/** SQL computing a row's `tf` from a text expression. */
export const tfSql = (text: string) =>
  `(SELECT coalesce(jsonb_object_agg(lexeme, cardinality(positions)), '{}'::jsonb) FROM ` +
  `unnest(to_tsvector('english', ${text})))`

/** SQL computing a row's `len` from its `tf` expression. */
export const lenSql = (tf: string) => `(SELECT coalesce(sum(value::int), 0)::int FROM jsonb_each_text(${tf}))`

/** Statistics of the knowledge search's fields: `chunk` (kb_chunks), `title` and `body` (kb_chunk_entries). */
export const CHUNK_STATS = 'kb_chunk'

/** Statistics of the page search's one field, `page` (a version's title and content). */
export const PAGE_STATS = 'kb_page'

/** DDL of the statistics tables of `stats` (a table-name prefix). */
export const termStatsSchema = (stats: string) => `
  CREATE TABLE ${stats}_terms (workspace_id text NOT NULL, field text NOT NULL, lexeme text NOT NULL,
    df integer NOT NULL,
    PRIMARY KEY (workspace_id, field, lexeme));
  CREATE TABLE ${stats}_fields (workspace_id text NOT NULL, field text NOT NULL, docs integer NOT NULL,
    total_len bigint NOT NULL,
    PRIMARY KEY (workspace_id, field));
`

/**
 * Moves the statistics by the rows a statement changes. `ctes` are the statement's data-modifying
 * CTEs (`gone AS (DELETE ... RETURNING ...)`), which PostgreSQL allows only at the top; `rows` is
 * a SELECT over them returning (workspace_id, field, tf, len, sign), sign +1 for a row added and
 * -1 for one removed. A replayed event removes the rows it adds again, so the statistics stay
 * right however often it is applied.
 */
export const countTerms = async (q: Queryable, stats: string, ctes: string, rows: string, args: unknown[]) => {
  const { rows: emptied } = await q.query<{ workspace_id: string; field: string; lexeme: string | null }>(
    `WITH ${ctes}, d AS (${rows}),
     fields AS (
       INSERT INTO ${stats}_fields (workspace_id, field, docs, total_len)
       SELECT workspace_id, field, sum(sign)::int, sum(sign * len) FROM d GROUP BY workspace_id, field
       ON CONFLICT (workspace_id, field) DO UPDATE SET docs = ${stats}_fields.docs + EXCLUDED.docs,
         total_len = ${stats}_fields.total_len + EXCLUDED.total_len
       RETURNING workspace_id, field, NULL::text AS lexeme, docs AS n),
     terms AS (
       INSERT INTO ${stats}_terms (workspace_id, field, lexeme, df)
       SELECT d.workspace_id, d.field, k, sum(d.sign)::int FROM d, jsonb_object_keys(d.tf) k GROUP BY d.workspace_id,
         d.field, k
       ON CONFLICT (workspace_id, field, lexeme) DO UPDATE SET df = ${stats}_terms.df + EXCLUDED.df
       RETURNING workspace_id, field, lexeme, df AS n)
     SELECT workspace_id, field, lexeme FROM fields WHERE n = 0 UNION ALL SELECT workspace_id, field,
       lexeme FROM terms WHERE n = 0`,
    args,
  )
  // What no row holds any more leaves, as if it had never been counted (a rebuild never counts it).
  if (emptied.length === 0) return
  const terms = emptied.filter((e) => e.lexeme !== null)
  await q.query(
    `DELETE FROM ${stats}_terms t USING unnest($1::text[], $2::text[], $3::text[]) AS u(w, f, l)
     WHERE t.workspace_id = u.w AND t.field = u.f AND t.lexeme = u.l AND t.df = 0`,
    [terms.map((e) => e.workspace_id), terms.map((e) => e.field), terms.map((e) => e.lexeme)],
  )
  const fields = emptied.filter((e) => e.lexeme === null)
  await q.query(
    `DELETE FROM ${stats}_fields t USING unnest($1::text[], $2::text[]) AS u(w,
      f) WHERE t.workspace_id = u.w AND t.field = u.f AND t.docs = 0`,
    [fields.map((e) => e.workspace_id), fields.map((e) => e.field)],
  )
}

/** Statistics of one field for a query's lexemes. */
export interface FieldStats {
  docs: number
  avgLen: number
  /** Documents holding each of the query's lexemes, in `QueryTerms.lexemes` order. */
  df: number[]
}

export interface QueryTerms {
  /** The query's lexemes, stemmed as stored rows are, with how often the query says each. */
  lexemes: string[]
  counts: number[]
  fields: Record<string, FieldStats>
}

/** The query's lexemes and the workspace's statistics of them in each field. */
export const queryTerms = async (
  q: Queryable,
  stats: string,
  workspaceId: string,
  query: string,
  fields: string[],
): Promise<QueryTerms> => {
  const { rows } = await q.query<{ lexeme: string; n: number }>(
    "SELECT lexeme, cardinality(positions) AS n FROM unnest(to_tsvector('english', $1)) ORDER BY lexeme",
    [query],
  )
  const lexemes = rows.map((r) => r.lexeme)
  const out: QueryTerms = { lexemes, counts: rows.map((r) => r.n), fields: {} }
  if (lexemes.length === 0) return out
  const [{ rows: totals }, { rows: dfs }] = await Promise.all([
    q.query<{ field: string; docs: number; total_len: string }>(
      `SELECT field, docs, total_len FROM ${stats}_fields WHERE workspace_id = $1 AND field = ANY($2::text[])`,
      [workspaceId, fields],
    ),
    q.query<{ field: string; lexeme: string; df: number }>(
      `SELECT field, lexeme,
        df FROM ${stats}_terms WHERE workspace_id = $1 AND field = ANY($2::text[]) AND lexeme = ANY($3::text[])`,
      [workspaceId, fields, lexemes],
    ),
  ])
  for (const field of fields) {
    const t = totals.find((r) => r.field === field)
    const docs = t?.docs ?? 0
    out.fields[field] = {
      docs,
      avgLen: docs > 0 ? Number(t!.total_len) / docs : 0,
      df: lexemes.map((l) => dfs.find((r) => r.field === field && r.lexeme === l)?.df ?? 0),
    }
  }
  return out
}

/** SQL giving the frequencies of the query's lexemes ($n, a text[]) in a row's `tf` column, as an int[]. */
export const tfOfSql = (tf: string, lexemesParam: string) =>
  `ARRAY(SELECT coalesce((${tf} ->> x)::int, 0) FROM unnest(${lexemesParam}::text[]) WITH ORDINALITY AS u(x, i) ` +
  `ORDER BY i)`
