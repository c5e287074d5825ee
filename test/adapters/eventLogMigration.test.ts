import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import { canonicalEvent, linkAfter, sha256 } from '../../adapters/eventstore/chain'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { serverUrl, testPglite, testPostgres } from '../../testkit/db'

// A log written by the release before the chain moved into the events' rows: the events in one
// table, each one's link in es_chain, each stream's revision in es_streams, and one event appended
// before the chain existed. Opening it moves the links into the rows, and it verifies as it did.
const OLD_SHAPE = `
CREATE TABLE es_events (position bigserial PRIMARY KEY, stream_id text NOT NULL, revision bigint NOT NULL,
  event_id uuid NOT NULL UNIQUE, type text NOT NULL, data jsonb NOT NULL, metadata jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (stream_id, revision));
CREATE TABLE es_streams (stream_id text PRIMARY KEY, revision bigint NOT NULL,
  truncated_before bigint NOT NULL DEFAULT 0);
CREATE TABLE es_chain (position bigint PRIMARY KEY, chain text NOT NULL, stream_id text NOT NULL,
  revision bigint NOT NULL, content_hash bytea NOT NULL, hash bytea NOT NULL, time timestamptz,
  form smallint NOT NULL DEFAULT 1);
CREATE TABLE es_chain_heads (chain text PRIMARY KEY, position bigint NOT NULL, hash bytea NOT NULL);
`

const metadata = (workspaceId?: string) => ({
  actor: { kind: 'system' as const, process: 'migration-test' },
  correlationId: randomUUID(),
  causationId: null,
  at: '2026-11-01T00:00:00.000Z',
  ...(workspaceId ? { workspaceId } : {}),
})

/** Writes the old log: entry-a created, updated and deleted (cut below the deletion), entry-b, a user. */
const writeOldLog = async (db: Database) => {
  await db.pool.query(OLD_SHAPE)
  const events = [
    ['entry-a', 0, 'EntryCreated', { content: 'a secret' }, 'w1'],
    ['entry-a', 1, 'EntryUpdated', { content: 'another secret' }, 'w1'],
    ['user-1', 0, 'UserRegistered', { email: 'ann@example.com' }, undefined],
    ['entry-b', 0, 'EntryCreated', { content: 'numbats' }, 'w1'],
    ['entry-a', 2, 'EntryDeleted', {}, 'w1'],
  ] as const
  const heads = new Map<string, Buffer>()
  for (const [i, [stream, revision, type, data, workspace]] of events.entries()) {
    const id = randomUUID()
    const meta = metadata(workspace)
    const time = new Date(Date.UTC(2026, 10, 1, 0, i))
    const content = sha256(canonicalEvent({ id, streamId: stream, type, data, metadata: meta }))
    const link = linkAfter(heads.get(workspace ?? ''), content)
    heads.set(workspace ?? '', link)
    const { rows } = await db.pool.query<{ position: number }>(
      `INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING position`,
      [stream, revision, id, type, JSON.stringify(data), JSON.stringify(meta), time],
    )
    await db.pool.query('INSERT INTO es_chain VALUES ($1, $2, $3, $4, $5, $6, $7, 2)', [
      rows[0].position,
      workspace ?? '',
      stream,
      revision,
      content,
      link,
      time,
    ])
    await db.pool.query(
      `INSERT INTO es_chain_heads VALUES ($1, $2, $3)
       ON CONFLICT (chain) DO UPDATE SET position = EXCLUDED.position, hash = EXCLUDED.hash`,
      [workspace ?? '', rows[0].position, link],
    )
    await db.pool.query(
      `INSERT INTO es_streams (stream_id, revision) VALUES ($1, $2)
       ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision`,
      [stream, revision],
    )
  }
  // The deletion's cut, as the release before made it: the rows go, their links stay. The first
  // link was made before links kept times.
  await db.pool.query("UPDATE es_streams SET truncated_before = 2 WHERE stream_id = 'entry-a'")
  await db.pool.query("DELETE FROM es_events WHERE stream_id = 'entry-a' AND revision < 2")
  await db.pool.query("UPDATE es_chain SET time = NULL WHERE stream_id = 'entry-a' AND revision = 0")
  // Appended by a release older than the chain: no link yet. An entry deleted then keeps its
  // deletion only, at revision 3, with no cut recorded (releases then deleted the rows before it).
  await db.pool.query(
    `INSERT INTO es_events (stream_id, revision, event_id, type, data, metadata)
     VALUES ('entry-b', 1, $1, 'EntryUpdated', '{"content":"numbats eat termites"}', $2),
       ('entry-old', 3, $3, 'EntryDeleted', '{}', $2)`,
    [randomUUID(), JSON.stringify(metadata('w1')), randomUUID()],
  )
  await db.pool.query("UPDATE es_streams SET revision = 1 WHERE stream_id = 'entry-b'")
}

const migrationSuite = (name: string, open: () => Promise<Database>) => {
  const test = suite<{ db: Database }>(name)
  test.before.each(async (ctx) => {
    ctx.db = await open()
    await writeOldLog(ctx.db)
  })
  test.after.each(async ({ db }) => db.close())

  test('the links move into the rows; the log reads, verifies and takes appends as before', async ({ db }) => {
    const store = await PostgresEventStore.open(db)
    const report = await store.verifyChain()
    assert.is(report.broken, undefined, JSON.stringify(report.broken))
    assert.equal([report.verified, report.cut], [5, 2])
    assert.equal(
      (await store.readAll()).map((e) => `${e.streamId}@${e.revision}`),
      ['user-1@0', 'entry-b@0', 'entry-a@2', 'entry-b@1', 'entry-old@3'],
    )
    assert.equal(
      (await store.readStream('entry-a')).map((e) => e.type),
      ['EntryDeleted'],
    )
    assert.equal(
      [await store.streamRevision('entry-a'), await store.streamRevision('entry-b'), await store.streamRevision('x')],
      [2, 1, 'no_stream'],
    )
    const { rows: tables } = await db.pool.query<{ t: string | null }>("SELECT to_regclass('es_chain')::text AS t")
    assert.is(tables[0].t, null, 'the old chain table is gone')
    const { rows: streams } = await db.pool.query<{ stream_id: string }>('SELECT stream_id FROM es_streams')
    assert.equal(
      streams.map((s) => s.stream_id),
      ['entry-a'],
      'only the cut stream is kept',
    )
    // A cut event still has its place in time.
    const at = await store.lastEventAt('w1', { time: new Date(Date.UTC(2026, 10, 1, 0, 1, 30)) })
    const { rows: cutRow } = await db.pool.query<{ position: number }>(
      "SELECT position FROM es_events WHERE stream_id = 'entry-a' AND revision = 1",
    )
    assert.is(at?.position, cutRow[0].position)
    // A link kept no time: its row's stays unknown, never taken for the latest moment.
    const { rows: timeless } = await db.pool.query<{ position: number; created_at: Date | null }>(
      "SELECT position, created_at FROM es_events WHERE stream_id = 'entry-a' AND revision = 0",
    )
    assert.is(timeless[0].created_at, null)
    const { rows: last } = await db.pool.query<{ position: number }>(
      "SELECT max(position) AS position FROM es_events WHERE chain = 'w1' AND data IS NOT NULL",
    )
    assert.is((await store.lastEventAt('w1', { time: new Date() }))?.position, last[0].position)
    // Appends go on from the revisions and heads the log holds.
    const event = () => ({
      id: randomUUID(),
      type: 'EntryUpdated',
      data: { content: 'more' },
      metadata: metadata('w1'),
    })
    const appended = await store.append('entry-b', [event()], 1)
    assert.is(appended.nextExpectedRevision, 2)
    await store.append('entry-b', [event()], 1).then(
      () => assert.unreachable('a stale revision is refused'),
      (e: Error) => assert.is(e.name, 'WrongExpectedVersion'),
    )
    await store.close()
    // A second open changes nothing, and the whole log still verifies.
    const again = await PostgresEventStore.open(db)
    const after = await again.verifyChain('w1')
    assert.is(after.broken, undefined)
    assert.equal(after.chains, [
      { chain: 'w1', position: appended.position, hash: (await again.chainHead('w1'))!.hash },
    ])
    await again.close()
  })

  test('after the move, an edited event and an event moved in its stream are found', async ({ db }) => {
    const store = await PostgresEventStore.open(db)
    await db.pool.query(
      `UPDATE es_events SET data = '{"content":"numbats eat ants"}' WHERE stream_id = 'entry-b' AND revision = 0`,
    )
    let report = await store.verifyChain()
    assert.equal([report.broken?.streamId, report.broken?.revision], ['entry-b', 0])
    assert.match(report.broken?.reason ?? '', /edited/)
    await db.pool.query(
      `UPDATE es_events SET data = '{"content":"numbats"}' WHERE stream_id = 'entry-b' AND revision = 0`,
    )
    assert.is((await store.verifyChain()).broken, undefined)
    // A form-2 event given a revision its stream never had before it.
    await db.pool.query("UPDATE es_events SET revision = -1 WHERE stream_id = 'entry-b' AND revision = 0")
    report = await store.verifyChain()
    assert.equal([report.broken?.streamId, report.broken?.revision], ['entry-b', -1])
    assert.match(report.broken?.reason ?? '', /moved/)
    await db.pool.query("UPDATE es_events SET revision = 0 WHERE stream_id = 'entry-b' AND revision = -1")
    // The event of the release older than the chain is in form 1, whose hash holds its revision.
    await db.pool.query("UPDATE es_events SET revision = 7 WHERE stream_id = 'entry-b' AND revision = 1")
    report = await store.verifyChain()
    assert.equal([report.broken?.streamId, report.broken?.revision], ['entry-b', 7])
    await store.close()
  })

  return test
}

migrationSuite('the event log of the release before, opened on PGlite', testPglite).run()
if (serverUrl) migrationSuite('the event log of the release before, opened on the Postgres server', testPostgres).run()
else {
  // Reported as skipped, never as passed, when no server is configured.
  const skipped = suite('the event log of the release before, on the Postgres server (TEST_DATABASE_URL unset)')
  skipped.skip('migration', () => undefined)
  skipped.run()
}
