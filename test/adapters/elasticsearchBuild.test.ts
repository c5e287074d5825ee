import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import { elasticsearchIndex } from '../../adapters/textIndex/elasticsearch'
import { testPglite } from '../../testkit/db'
import { type FakeElasticsearch, fakeElasticsearch } from './fakeElasticsearch'

// An index build beside live writes, with the build's state shared through the database: two adapter
// instances stand for two processes (the API process, where an operator's rebuild runs, and the projector
// process) on one database, against a local server speaking Elasticsearch's API (./fakeElasticsearch.ts).

const table = { table: 'notes', key: 'key' }
type Index = ReturnType<typeof elasticsearchIndex>

const close = async (db: Database, fake: FakeElasticsearch, ...indices: Index[]) => {
  for (const index of indices) await index.close?.()
  await db.close()
  await fake.close()
}

const pages = suite('Elasticsearch index build from the database')
pages('the first start builds the index from the rows, 500 a page, and the alias names it', async () => {
  const fake = await fakeElasticsearch()
  const db = await testPglite()
  await db.pool.query(
    `CREATE TABLE notes (id text PRIMARY KEY, key text NOT NULL, body text NOT NULL);
     CREATE TABLE projection_checkpoints (name text PRIMARY KEY, position bigint NOT NULL, version int NOT NULL);
     INSERT INTO projection_checkpoints VALUES ('notes', 50, 1);
     INSERT INTO notes SELECT 'n' || lpad(i::text, 4, '0'), 'k' || i, 'Wombat ' || i FROM generate_series(1, 501) i`,
  )
  const index = elasticsearchIndex(fake.url)
  index.indexDdl('notes', 'body')
  try {
    await index.open!(db, [table])
    assert.ok(fake.aliases.get('kb-notes')?.startsWith('kb-notes-v'))
    assert.is(fake.bulks().length, 2)
    assert.is(fake.indices.get(fake.aliases.get('kb-notes')!)?.size, 501)
    assert.is(fake.doc('kb-notes', 'n0501')?.body, 'Wombat 501')
  } finally {
    await close(db, fake, index)
  }
})
pages.run()
