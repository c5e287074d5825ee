import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { pg_textsearch } from '@electric-sql/pglite-pg_textsearch'
import { type Database, openPglite, openPostgres } from '../adapters/db'

// Creating a PGlite cluster takes seconds; cloning a ready one is faster.
let template: Promise<PGlite> | undefined

/** A fresh in-memory PGlite database for one suite. */
export const testPglite = async (): Promise<Database> => {
  template ??= PGlite.create({ extensions: { vector, pg_textsearch } })
  const clone = await (await template).clone()
  return openPglite(clone as PGlite)
}

/** The Postgres server of TEST_DATABASE_URL, when set (.ci/run sets it). */
export const serverUrl = process.env.TEST_DATABASE_URL

/** A fresh database on the Postgres server of `server` (a URL), dropped by the returned close(). */
export const freshPostgres = async (server: string, max = 20): Promise<Database> => {
  const name = `kb_test_${randomBytes(6).toString('hex')}`
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: server })
    await client.connect()
    await client.query(sql).finally(() => client.end())
  }
  await admin(`CREATE DATABASE ${name}`)
  const url = new URL(server)
  url.pathname = `/${name}`
  const db = await openPostgres(url.toString(), max)
  return {
    ...db,
    close: async () => {
      await db.close()
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    },
  }
}

/** A fresh database on the Postgres server of TEST_DATABASE_URL. */
export const testPostgres = async (): Promise<Database> => {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set')
  return freshPostgres(serverUrl)
}
