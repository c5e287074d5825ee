import type { Client, Queryable } from '../adapters/db'

/**
 * A table's history: every row it held, each with the log positions between which it was current
 * (from `valid_from`, up to but not including `valid_to`; still current while that is null). Answers
 * "as of" a past moment read it (queries/asOf.ts says which rows). The projector that owns the
 * table records a key's rows into it after each event that changes them, in the same transaction:
 * copies of rows already computed (vectors named by their hash in the embedding cache), so going
 * back in time never embeds anything.
 * A row that an event leaves as it was stays one row: an edit of one chunk adds one chunk's row.
 *
 * The DDL goes right after the table's own CREATE TABLE, before any column an index adds to it: the
 * history takes the table's columns, and its indexes are declared on it as on the table. Rows are
 * found by key, and by their `id` column where a key has several rows.
 */
export const historyDdl = (table: string, key: string, id?: string) => `
  CREATE TABLE ${table}_history (LIKE ${table}, valid_from bigint NOT NULL, valid_to bigint);
  CREATE INDEX ${table}_history_key ON ${table}_history (${key}, valid_from);
  ${id ? `CREATE INDEX ${table}_history_id ON ${table}_history (${id}, valid_from);` : ''}`

const written = new Map<string, Promise<string[]>>()

/**
 * A table's columns that its history keeps and that are written (generated ones are computed again
 * by the history; a history may leave out a column it finds elsewhere, as vectors in the cache).
 */
const writtenColumns = (q: Queryable, table: string) => {
  let columns = written.get(table)
  if (!columns) {
    columns = q
      .query<{ name: string }>(
        `SELECT c.column_name AS name FROM information_schema.columns c
         JOIN information_schema.columns h ON h.table_schema = c.table_schema AND h.table_name = $1 || '_history'
           AND h.column_name = c.column_name
         WHERE c.table_schema = current_schema() AND c.table_name = $1 AND c.is_generated = 'NEVER'
         ORDER BY c.ordinal_position`,
        [table],
      )
      .then(({ rows }) => rows.map((r) => r.name))
    written.set(table, columns)
    columns.catch(() => written.delete(table))
  }
  return columns
}

/**
 * After an event at `position`: the key's rows as they now stand become current, and the rows they
 * replace close; a row the event left as it was (the same in every column but `unversioned` ones)
 * stays open. An event the history has already seen, or one older than what it holds of the key (a
 * replay), changes nothing.
 */
export const recordHistory = async (
  tx: Client,
  table: string,
  key: string,
  value: string,
  position: number,
  unversioned: string[] = [],
) => {
  const { rows } = await tx.query(`SELECT 1 FROM ${table}_history WHERE ${key} = $1 AND valid_from >= $2 LIMIT 1`, [
    value,
    position,
  ])
  if (rows.length > 0) return
  const columns = await writtenColumns(tx, table)
  const compared = columns.filter((c) => !unversioned.includes(c))
  const row = (alias: string) => `(${compared.map((c) => `${alias}.${c}`).join(', ')})`
  const same = (a: string, b: string) => `${row(a)} IS NOT DISTINCT FROM ${row(b)}`
  await tx.query(
    `UPDATE ${table}_history h SET valid_to = $2 WHERE h.${key} = $1 AND h.valid_to IS NULL
       AND NOT EXISTS (SELECT 1 FROM ${table} c WHERE c.${key} = $1 AND ${same('c', 'h')})`,
    [value, position],
  )
  const list = columns.join(', ')
  await tx.query(
    `INSERT INTO ${table}_history (${list}, valid_from) SELECT ${list}, $2 FROM ${table} c WHERE c.${key} = $1
       AND NOT EXISTS (SELECT 1 FROM ${table}_history h
         WHERE h.${key} = $1 AND h.valid_to IS NULL AND ${same('c', 'h')})`,
    [value, position],
  )
}
