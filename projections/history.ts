import type { Client, Queryable } from '../adapters/db'

/**
 * A table's history: every row it held, each with the log positions between which it was current
 * (from `valid_from`, up to but not including `valid_to`; still current while that is null). Answers
 * "as of" a past moment read it (queries/asOf.ts says which rows). The projector that owns the table copies a key's
 * rows into it after each event that changes them, in the same transaction: copies of rows already
 * computed, vectors included, so going back in time never embeds anything.
 *
 * The DDL goes right after the table's own CREATE TABLE, before any column an index adds to it: the
 * history takes the table's columns, and its indexes are declared on it as on the table.
 */
export const historyDdl = (table: string, key: string) => `
  CREATE TABLE ${table}_history (LIKE ${table}, valid_from bigint NOT NULL, valid_to bigint);
  CREATE INDEX ${table}_history_key ON ${table}_history (${key}, valid_from);`

const written = new Map<string, Promise<string>>()

/** A table's columns that are written (generated ones are computed again by the history). */
const writtenColumns = (q: Queryable, table: string) => {
  let columns = written.get(table)
  if (!columns) {
    columns = q
      .query<{ name: string }>(
        `SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema()
           AND table_name = $1 AND is_generated = 'NEVER' ORDER BY ordinal_position`,
        [table],
      )
      .then(({ rows }) => rows.map((r) => r.name).join(', '))
    written.set(table, columns)
    columns.catch(() => written.delete(table))
  }
  return columns
}

/** The key's current rows in the history stop being current at `position`. */
const closeHistory = (tx: Client, table: string, key: string, value: string, position: number) =>
  tx.query(`UPDATE ${table}_history SET valid_to = $2 WHERE ${key} = $1 AND valid_to IS NULL AND valid_from < $2`, [
    value,
    position,
  ])

/**
 * After an event at `position`: the key's rows as they now stand become current, the ones they
 * replace close. An event the history has already seen, or one older than what it holds of the key
 * (a replay), changes nothing.
 */
export const recordHistory = async (tx: Client, table: string, key: string, value: string, position: number) => {
  const { rows } = await tx.query(`SELECT 1 FROM ${table}_history WHERE ${key} = $1 AND valid_from >= $2 LIMIT 1`, [
    value,
    position,
  ])
  if (rows.length > 0) return
  const columns = await writtenColumns(tx, table)
  await closeHistory(tx, table, key, value, position)
  await tx.query(
    `INSERT INTO ${table}_history (${columns}, valid_from) SELECT ${columns}, $2 FROM ${table} WHERE ${key} = $1`,
    [value, position],
  )
}
