import { openTextIndex } from '../../adapters/textIndex'
import { tsvectorIndex } from '../../adapters/textIndex/tsvector'
import { testPglite } from '../../testkit/db'
import { textIndexContract } from './textIndex'

textIndexContract('pg_textsearch on PGlite', async () => {
  const db = await testPglite()
  // PGlite has the extension: opening the index creates it.
  const index = await openTextIndex(db.pool)
  if (index.name !== 'pg_textsearch') throw new Error(`expected pg_textsearch, opened ${index.name}`)
  return { db, index }
}).run()
textIndexContract('built-in full-text search on PGlite', async () => ({
  db: await testPglite(),
  index: tsvectorIndex(),
})).run()
