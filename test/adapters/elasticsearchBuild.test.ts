import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Database, inTransaction } from '../../adapters/db'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { elasticsearchIndex } from '../../adapters/textIndex/elasticsearch'
import { type Projector, applyBatch } from '../../projections/projector'
import { freshPostgres, serverUrl, testPglite } from '../../testkit/db'
import { seedMember, startTestService } from '../helpers/service'
import { until } from '../helpers/until'
import { type FakeElasticsearch, fakeElasticsearch } from './fakeElasticsearch'

// An index build beside live writes, with the build's state shared through the database: two adapter
// instances stand for two processes (the API process, where an operator's rebuild runs, and the projector
// process) on one database, against a local server speaking Elasticsearch's API (./fakeElasticsearch.ts).

const table = { table: 'notes', key: 'key' }
const NEW_BODY = 'A numbat moved in.'

type Index = ReturnType<typeof elasticsearchIndex>

/** The notes table, and the projector process's index opened on it (its first start builds the index). */
const setUp = async (db: Database, fake: FakeElasticsearch) => {
  const api = elasticsearchIndex(fake.url)
  const projector = elasticsearchIndex(fake.url)
  api.indexDdl('notes', 'body')
  await db.pool.query(
    `CREATE TABLE notes (id text PRIMARY KEY, key text NOT NULL, body text NOT NULL);
     ${projector.indexDdl('notes', 'body')}
     CREATE TABLE projection_checkpoints (name text PRIMARY KEY, position bigint NOT NULL, version int NOT NULL);
     INSERT INTO projection_checkpoints VALUES ('notes', 50, 1);
     INSERT INTO notes VALUES ('n1', 'a', 'The wombat digs.'), ('n2', 'b', 'Wombats sleep.')`,
  )
  await projector.open!(db, [table])
  return { api, projector }
}

/** What a projector's batch does for key `a`: its row changed, mirrored and sent in the batch's transaction. */
const projectNote = async (q: Parameters<NonNullable<Index['mirror']>>[0], index: Index, position: number) => {
  await q.query('UPDATE notes SET body = $1 WHERE id = $2', [NEW_BODY, 'n1'])
  await index.mirror!(q, { ...table, value: 'a', position })
  await index.refresh!(['notes'])
}

const close = async (db: Database, fake: FakeElasticsearch, ...indices: Index[]) => {
  for (const index of indices) await index.close?.()
  await db.close()
  await fake.close()
}

/**
 * A build in one process (its copy held at its first page) while the other projects a change: the change
 * reaches the new index, which the alias then names.
 */
const writeDuringBuild = async (db: Database) => {
  let hold = false
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  let copying!: () => void
  const copyStarted = new Promise<void>((resolve) => {
    copying = resolve
  })
  // The build's copy is a bulk request naming concrete indices only; a projector's names the alias.
  const fake = await fakeElasticsearch(async (r) => {
    if (hold && r.path === '/_bulk' && !r.body.includes('require_alias')) {
      copying()
      await held
    }
    return undefined
  })
  const { api, projector } = await setUp(db, fake)
  try {
    const before = fake.aliases.get('kb-notes')
    hold = true
    const build = api.rebuild!(db, table)
    await copyStarted
    await inTransaction(db.pool, (tx) => projectNote(tx, projector, 60))
    release()
    await build
    assert.is.not(fake.aliases.get('kb-notes'), before, 'the alias names the new index')
    assert.is(fake.doc('kb-notes', 'n1')?.body, NEW_BODY)
    assert.is(fake.doc('kb-notes', 'n2')?.body, 'Wombats sleep.')
  } finally {
    await close(db, fake, api, projector)
  }
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

const shared = suite('Elasticsearch index build: two processes on one PGlite database')
shared('a write projected by one process while the other builds lands in the new index', async () =>
  writeDuringBuild(await testPglite()),
)
shared.run()

const batches = suite('Elasticsearch writes: one bulk request per batch')
batches('a batch of 12 events (12 keys) sends one bulk request, with every document', async () => {
  const fake = await fakeElasticsearch()
  const db = await testPglite()
  const { api, projector: index } = await setUp(db, fake)
  const events: RecordedEvent[] = Array.from({ length: 12 }, (_, i) => ({
    id: `e${i}`,
    type: 'NoteWritten',
    data: { id: `m${i}`, body: `Numbat note ${i}.` },
    metadata: { actor: { kind: 'system', process: 'test' }, correlationId: `e${i}`, causationId: null, at: '' },
    streamId: `note-m${i}`,
    revision: 0,
    position: 51 + i,
    time: new Date().toISOString(),
  }))
  const notes: Projector = {
    name: 'notes',
    version: 1,
    tables: ['notes'],
    schema: '',
    handles: ['NoteWritten'],
    apply: async (tx, e) => {
      const { id, body } = e.data as { id: string; body: string }
      await tx.query('INSERT INTO notes VALUES ($1, $1, $2)', [id, body])
      await index.mirror!(tx, { ...table, value: id, position: e.position })
    },
    afterBatch: async () => index.refresh!(['notes']),
  }
  try {
    const sent = fake.bulks().length
    await inTransaction(db.pool, (tx) => applyBatch(tx, notes, events, 50))
    assert.is(fake.bulks().length - sent, 1)
    for (let i = 0; i < 12; i++) assert.is(fake.doc('kb-notes', `m${i}`)?.body, `Numbat note ${i}.`)
  } finally {
    await close(db, fake, api, index)
  }
})
batches('in the service: the indices are built at start, and an entry created is one bulk request', async () => {
  // The fake answers no search: searches fall back to the database's own index, as when overloaded.
  const fake = await fakeElasticsearch(({ path }) =>
    path.endsWith('/_search') ? { status: 503, body: { error: 'the fake answers no search', status: 503 } } : undefined,
  )
  const svc = await startTestService({ ELASTICSEARCH_URL: fake.url })
  try {
    await until('the indices are built', () => fake.aliases.size === 3)
    const { token } = await seedMember(svc.call)
    const sent = fake.bulks().length
    const created = await svc.call('POST', '/api/v1/knowledge', {
      token,
      body: { title: 'Wombats', source: 'text', content: 'The wombat digs a burrow.' },
    })
    assert.is(created.body.data.processingStatus, 'completed')
    assert.is(fake.bulks().length - sent, 1)
    const id = created.body.data.id
    assert.is(fake.doc('kb-kb_chunk_entries', id)?.title, 'Wombats')
    assert.is(fake.doc('kb-kb_chunks', `${id}:0`)?.entry_id, id)
  } finally {
    await svc.stop()
    await fake.close()
  }
})
batches.run()

const server = suite('Elasticsearch index build: two processes on one PostgreSQL server')
if (!serverUrl) {
  server.skip('a write during the build, a batch begun before it (TEST_DATABASE_URL unset)', () => undefined)
} else {
  const url = serverUrl
  server('a write projected by one process while the other builds lands in the new index', async () =>
    writeDuringBuild(await freshPostgres(url, 4)),
  )
  server('a batch begun before the build started is in the new index once the alias moves', async () => {
    const fake = await fakeElasticsearch()
    const db = await freshPostgres(url, 4)
    const { api, projector } = await setUp(db, fake)
    try {
      const before = fake.aliases.get('kb-notes')
      const batch = await db.pool.connect()
      let build: Promise<void> | undefined
      try {
        await batch.query('BEGIN')
        await batch.query('UPDATE notes SET body = $1 WHERE id = $2', [NEW_BODY, 'n1'])
        await projector.mirror!(batch, { ...table, value: 'a', position: 60 })
        // The build starts while the batch is open, and may well finish its copy before the batch commits.
        build = api.rebuild!(db, table)
        await Promise.race([build, new Promise((resolve) => setTimeout(resolve, 500))])
        await projector.refresh!(['notes'])
        await batch.query('COMMIT')
      } finally {
        batch.release()
      }
      await build
      assert.is.not(fake.aliases.get('kb-notes'), before, 'the alias names the new index')
      assert.is(fake.doc('kb-notes', 'n1')?.body, NEW_BODY)
    } finally {
      await close(db, fake, api, projector)
    }
  })
}
server.run()
