import net from 'node:net'
import { Client } from '@elastic/elasticsearch'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { elasticsearchIndex } from '../../adapters/textIndex/elasticsearch'
import {
  MAPPING_VERSION,
  buildingSchema,
  indexBody,
  indexNameOf,
  isCurrent,
  mirrorOperations,
  mirroredSchema,
  scopeFilters,
} from '../../adapters/textIndex/elasticsearchRequests'
import type { Database } from '../../adapters/db'
import { chunkScope } from '../../adapters/textIndex/port'
import { DependencyUnavailable } from '../../adapters/unavailable'
import { testPglite } from '../../testkit/db'
import { fakeElasticsearch } from '../adapters/fakeElasticsearch'
import { textIndexContract } from './textIndex'

// What is sent to Elasticsearch, checked without a server.
const requests = suite('text index on Elasticsearch: requests')
requests('the workspace and the filters become filter clauses; a folder is checked in SQL only', () => {
  assert.equal(scopeFilters(chunkScope('w1', { source: 'url', category: 'faq', tag: 'ops' })), {
    filters: [
      { term: { workspace_id: 'w1' } },
      { term: { is_enabled: true } },
      { term: { source: 'url' } },
      { term: { category: 'faq' } },
      { term: { tags: 'ops' } },
    ],
    complete: true,
  })
  const inFolder = scopeFilters(chunkScope('w1', { folderId: 'f1' }))
  assert.equal([inFolder.filters.length, inFolder.complete], [2, false])
})
requests('every field is mapped from its column; nothing is guessed from a document (dates, numbers)', () => {
  const body = indexBody(
    [
      { name: 'id', type: 'text' },
      { name: 'title_text', type: 'text' },
      { name: 'tags', type: 'ARRAY' },
      { name: 'is_enabled', type: 'boolean' },
      { name: 'len', type: 'integer' },
      { name: 'title_tf', type: 'jsonb' },
    ],
    new Set(['title_text']),
    0,
  )
  assert.equal(body.settings, { number_of_replicas: 0 })
  assert.equal(
    [body.mappings.dynamic, body.mappings.date_detection, body.mappings.numeric_detection],
    [false, false, false],
  )
  assert.equal(body.mappings.properties, {
    id: { type: 'keyword' },
    title_text: { type: 'text', analyzer: 'english' },
    tags: { type: 'keyword' },
    is_enabled: { type: 'boolean' },
    len: { type: 'long' },
  })
})
requests('indices are named by mapping version behind the alias; an older one is not current', () => {
  const name = indexNameOf('kb-', 'kb_chunks', 1700000000000)
  assert.is(name, `kb-kb_chunks-v${MAPPING_VERSION}-1700000000000`)
  assert.ok(isCurrent('kb-', 'kb_chunks', name))
  assert.not.ok(isCurrent('kb-', 'kb_chunks', `kb-kb_chunks-v${MAPPING_VERSION - 1}-1`))
  assert.not.ok(isCurrent('kb-', 'kb_chunks', 'kb-kb_chunks_history-v2-1'))
})
requests('a key is written at the event position (external_gte), its gone documents deleted, to each index', () => {
  // The documents the key had before come from the database's record, not from a search of the index.
  const ops = mirrorOperations(
    ['kb-kb_chunks', 'kb-kb_chunks-v2-9'],
    [{ id: 'e:0', doc: { id: 'e:0' } }],
    ['e:0', 'e:1'],
    42,
    'kb-kb_chunks',
  )
  const version = { version: 42, version_type: 'external_gte' }
  assert.equal(ops, [
    { index: { _index: 'kb-kb_chunks', _id: 'e:0', ...version, require_alias: true } },
    { id: 'e:0' },
    { delete: { _index: 'kb-kb_chunks', _id: 'e:1', ...version } },
    { index: { _index: 'kb-kb_chunks-v2-9', _id: 'e:0', ...version } },
    { id: 'e:0' },
    { delete: { _index: 'kb-kb_chunks-v2-9', _id: 'e:1', ...version } },
  ])
})
requests.run()

/** A table of two notes indexed by `index`, and the candidates it gives for "wombat". */
const notesAndWombat = async (db: Database, index: ReturnType<typeof elasticsearchIndex>) => {
  await db.pool.query(
    `CREATE TABLE notes (id text PRIMARY KEY, key text NOT NULL, workspace_id text NOT NULL, body text NOT NULL);
     ${index.indexDdl('notes', 'body')}`,
  )
  await db.pool.query("INSERT INTO notes VALUES ('n1', 'a', 'w1', 'The wombat digs.'), ('n2', 'b', 'w1', 'Koalas.')")
  return index.candidates(db.pool, {
    table: 'notes',
    column: 'body',
    key: 'key',
    query: 'wombat',
    scope: [['workspace_id = ?', 'w1']],
    limit: 5,
  })
}

/** A projector's write of key `a` of the notes, sent at its batch's end: what it threw, if anything. */
const writeNote = async (db: Database, index: ReturnType<typeof elasticsearchIndex>) => {
  await db.pool.query(`${mirroredSchema}; ${buildingSchema}`)
  return index.mirror!(db.pool, { table: 'notes', key: 'key', value: 'a', position: 7 })
    .then(() => index.refresh!(['notes']))
    .then(
      () => undefined,
      (e: Error) => e,
    )
}

// With the server unreachable (a closed port here): searches answer from the database's own index
// over the same rows and say so; a projector's write waits (DependencyUnavailable), never fails for good.
const outage = suite('text index on Elasticsearch: the server unreachable')
outage('searches fall back to the built-in full-text index and name it; writes wait', async () => {
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
  const db = await testPglite()
  const index = elasticsearchIndex(`http://127.0.0.1:${port}`, { requestTimeoutMs: 1000, searchTimeoutMs: 500 })
  try {
    assert.is(index.name, 'elasticsearch')
    const found = await notesAndWombat(db, index)
    assert.equal(found, [{ id: 'n1', key: 'a' }])
    assert.is(index.name, 'tsvector (Elasticsearch unreachable)')
    const write = await writeNote(db, index)
    assert.instance(write, DependencyUnavailable)
  } finally {
    await index.close?.()
    await db.close()
  }
})
outage.run()

// Overloaded (a local server answering as Elasticsearch does when its queues are full: 429 with
// es_rejected_execution_exception, and a bulk request whose documents are refused one by one with 429):
// a search falls back and says why, and a projector's write waits to be tried again, never fails for good.
const overload = suite('text index on Elasticsearch: the server overloaded (429)')
overload('a search falls back naming the overload; a write refused item by item for load waits', async () => {
  const rejected = {
    type: 'es_rejected_execution_exception',
    reason: 'rejected execution of coordinating operation',
  }
  const server = await fakeElasticsearch(({ path }) => {
    if (path === '/_bulk')
      return { body: { took: 1, errors: true, items: [{ index: { _id: 'n1', status: 429, error: rejected } }] } }
    return { status: 429, body: { error: { root_cause: [rejected], ...rejected }, status: 429 } }
  })
  const db = await testPglite()
  const index = elasticsearchIndex(server.url, { requestTimeoutMs: 1000, searchTimeoutMs: 500 })
  try {
    const found = await notesAndWombat(db, index)
    assert.equal(found, [{ id: 'n1', key: 'a' }])
    assert.is(index.name, 'tsvector (Elasticsearch overloaded)')
    const write = await writeNote(db, index)
    assert.instance(write, DependencyUnavailable)
    assert.match(write!.message, /overloaded: 1 documents refused: rejected execution/)
  } finally {
    await index.close?.()
    await db.close()
    await server.close()
  }
})
overload.run()

const url = process.env.ELASTICSEARCH_URL
if (!url) {
  // No Elasticsearch server runs in this repository's CI: reported as skipped, never as passed.
  const skipped = suite('text index contract on Elasticsearch (ELASTICSEARCH_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.skip('the index behind its alias: deleted, an older mapping, rebuilt', () => undefined)
  skipped.run()
} else {
  const prefix = `kb-test-${process.pid}-`
  const raw = new Client({ node: url })
  textIndexContract('elasticsearch', async () => {
    const db = await testPglite()
    // The projections' checkpoints, which an index build reads (the contract opens the index on its table).
    await db.pool.query('CREATE TABLE projection_checkpoints (name text PRIMARY KEY, position bigint, version int)')
    return { db, index: elasticsearchIndex(url, { prefix }) }
  }).run()

  // What only an index outside the database goes through.
  const aliased = suite<{ db: Database; index: ReturnType<typeof elasticsearchIndex> }>(
    'text index on Elasticsearch: the index behind its alias',
  )
  const table = { table: 'notes', key: 'key' }
  const behind = async () => Object.keys(await raw.indices.getAlias({ name: `${prefix}notes` }))[0]
  const wombats = (ctx: { db: Database; index: ReturnType<typeof elasticsearchIndex> }) =>
    ctx.index.candidates(ctx.db.pool, { ...table, column: 'body', query: 'wombat', scope: [], limit: 10 })
  aliased.before(async (ctx) => {
    ctx.db = await testPglite()
    ctx.index = elasticsearchIndex(url, { prefix })
    await ctx.db.pool.query(
      `CREATE TABLE notes (id text PRIMARY KEY, key text NOT NULL, tags text[] NOT NULL, body text NOT NULL);
       ${ctx.index.indexDdl('notes', 'body')}
       CREATE TABLE projection_checkpoints (name text PRIMARY KEY, position bigint NOT NULL, version int NOT NULL);
       INSERT INTO projection_checkpoints VALUES ('chunks', 50, 1);
       INSERT INTO notes VALUES ('n1', 'a', '{2024-06-01}', 'The wombat digs.'), ('n2', 'b', '{}', 'Wombats sleep.')`,
    )
    // The first start builds the index from the rows.
    await ctx.index.open!(ctx.db, [table])
  })
  aliased.after(async ({ db, index }) => {
    await index.close?.()
    await db.close()
    await raw.indices.delete({ index: `${prefix}*`, ignore_unavailable: true })
    await raw.close()
  })
  aliased('built from the rows at first start, with no replica on a single node', async (ctx) => {
    const index = await behind()
    assert.ok(isCurrent(prefix, 'notes', index), index)
    const settings = await raw.indices.getSettings({ index })
    assert.is(settings[index].settings?.index?.number_of_replicas, '0')
    assert.equal((await wombats(ctx)).map((r) => r.id).sort(), ['n1', 'n2'])
  })
  aliased(
    'an index deleted under the service: writes wait, searches answer from the database, open builds it',
    async (ctx) => {
      await raw.indices.delete({ index: await behind() })
      const write = await ctx.index.mirror!(ctx.db.pool, { ...table, value: 'a', position: 60 })
        .then(() => ctx.index.refresh!(['notes']))
        .then(
          () => undefined,
          (e: Error) => e,
        )
      assert.instance(write, DependencyUnavailable)
      assert.equal((await wombats(ctx)).map((r) => r.id).sort(), ['n1', 'n2'])
      await ctx.index.open!(ctx.db, [table])
      assert.ok(isCurrent(prefix, 'notes', await behind()))
      assert.equal((await wombats(ctx)).map((r) => r.id).sort(), ['n1', 'n2'])
    },
  )
  aliased('an alias on an older mapping is moved to a new index built from the rows', async (ctx) => {
    const old = `${prefix}notes-v${MAPPING_VERSION - 1}-1`
    const current = await behind()
    await raw.indices.create({ index: old })
    await raw.indices.updateAliases({
      actions: [
        { remove: { index: current, alias: `${prefix}notes` } },
        { add: { index: old, alias: `${prefix}notes` } },
      ],
    })
    await ctx.index.open!(ctx.db, [table])
    const now = await behind()
    assert.ok(isCurrent(prefix, 'notes', now))
    assert.not.ok(await raw.indices.exists({ index: old }))
    assert.equal((await wombats(ctx)).map((r) => r.id).sort(), ['n1', 'n2'])
  })
  aliased(
    'a rebuild (or a restore, whose positions restart lower) swaps in an index built from the rows',
    async (ctx) => {
      const before = await behind()
      await ctx.db.pool.query("UPDATE notes SET body = 'A quiet night.' WHERE id = 'n2'")
      // Positions lower than the index holds: a plain write would be refused as older.
      await ctx.db.pool.query('UPDATE projection_checkpoints SET position = 3')
      await ctx.index.rebuild!(ctx.db, table)
      assert.is.not(await behind(), before)
      assert.equal(
        (await wombats(ctx)).map((r) => r.id),
        ['n1'],
      )
    },
  )
  aliased.run()
}
