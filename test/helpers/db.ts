import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { PGlite } from '@electric-sql/pglite'
import { vector } from '@electric-sql/pglite-pgvector'
import { pg_textsearch } from '@electric-sql/pglite-pg_textsearch'
import { type Database, openPglite, openPostgres } from '../../adapters/db'

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

/** A fresh database on the Postgres server, dropped by the returned close(). */
export const testPostgres = async (): Promise<Database> => {
  if (!serverUrl) throw new Error('TEST_DATABASE_URL is not set')
  const name = `kb_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const db = await openPostgres(url.toString(), 20)
  return {
    ...db,
    close: async () => {
      await db.close()
      const drop = new pg.Client({ connectionString: serverUrl })
      await drop.connect()
      await drop.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await drop.end()
    },
  }
}
