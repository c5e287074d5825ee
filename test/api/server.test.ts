import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { rebuildProjector } from '../../projections/rebuild'
import { openPostgres } from '../../adapters/db'
import { serverUrl, testPostgres } from '../../testkit/db'
import { waitForTask } from '../helpers/ingestion'
import { dump } from '../../testkit/rows'
import { ADMIN, type Call, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

// The same service on the Postgres server (DATABASE_URL's deployment): read models, read-your-writes,
// concurrent commands and a rebuild while writes go on.
const test = suite<{ svc: TestService }>('API on the Postgres server')

/** The entries the search checks run over, on either deployment: one that matches, one that does not. */
const twoEntries = async (call: Call, token: string) =>
  Promise.all(
    [
      { title: 'wal', source: 'text', content: 'The write-ahead log makes crashes recoverable.' },
      { title: 'other', source: 'text', content: 'Gardening in spring.' },
    ].map(async (body) => ok(await call('POST', '/api/v1/knowledge', { token, body }), 201)),
  )
if (!serverUrl) {
  test.skip('the service on the Postgres server (TEST_DATABASE_URL unset)', () => undefined)
} else {
  test.before(async (ctx) => {
    ctx.svc = await startTestService({}, await testPostgres())
  })
  test.after(async ({ svc }) => svc.stop())

  test('create, validate and switch: each write is readable in the answer that follows it', async ({ svc }) => {
    const m = await seedMember(svc.call, 'admin')
    const other = await seedMember(svc.call, 'owner')
    ok(
      await svc.call('POST', `/api/v1/admin/workspaces/${other.workspaceId}/members`, {
        token: ADMIN,
        body: { userId: m.userId, role: 'editor' },
      }),
    )
    const switched = ok(
      await svc.call('POST', '/api/v1/auth/switch-workspace', {
        token: m.token,
        body: { workspace_id: other.workspaceId },
      }),
    )
    const now = ok(await svc.call('POST', '/api/v1/auth/validate', { token: switched.access_token }))
    assert.is(now.user.current_workspace.role, 'editor')
    expectError(await svc.call('GET', '/api/v1/audit/events', { token: switched.access_token }), 403, 'FORBIDDEN')
    const audit = ok(await svc.call('GET', '/api/v1/audit/events', { token: m.token }))
    assert.ok(audit.events.every((e: any) => e.metadata.workspaceId === m.workspaceId))
  })

  test('entries on the server: created, listed, chunked with real[] vectors when pgvector is missing, deleted', async ({
    svc,
  }) => {
    const m = await seedMember(svc.call, 'owner')
    const e = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 'On the server', source: 'text', content: 'Server side text. '.repeat(300) },
      }),
      201,
    )
    assert.is(ok(await svc.call('GET', '/api/v1/knowledge', { token: m.token })).total, 1)
    const { rows } = await svc.deps.db.pool.query(
      'SELECT count(*)::int AS n, bool_and(embedding IS NOT NULL) AS all_embedded FROM kb_passages WHERE entry_id = $1',
      [e.id],
    )
    assert.ok(rows[0].n >= 1 && rows[0].all_embedded)
    ok(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token }))
    expectError(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token }), 404, 'NOT_FOUND')
  })

  test('search on a server without pg_textsearch or pgvector: full-text answers, vectors by an exact scan', async ({
    svc,
  }) => {
    const m = await seedMember(svc.call, 'owner')
    const [e] = await twoEntries(svc.call, m.token)
    const text = ok(
      await svc.call('POST', '/api/v1/knowledge/search', {
        token: m.token,
        body: { query: 'crash log', mode: 'text', minScore: 0 },
      }),
    )
    assert.equal(
      text.results.map((r: any) => r.id),
      [e.id],
    )
    const vector = ok(
      await svc.call('POST', '/api/v1/knowledge/search', {
        token: m.token,
        body: { query: "crash's log (\\)", mode: 'vector', minScore: 0 },
      }),
    )
    // real[] vectors, compared one by one: the answer is in vector mode, with no fallback.
    assert.equal([vector.mode, vector.fallback], ['vector', undefined])
    // The answer names the engine of each leg that ran.
    assert.equal([text.engines, vector.engines], [{ text: 'tsvector' }, { vectors: 'exact scan' }])
    assert.is(vector.results[0].id, e.id)
    assert.ok(vector.results[0].scores.vector > 0)
    const health = ok(await svc.call('GET', '/health')).dependencies
    assert.equal(health.search, { text: 'tsvector', vectors: 'exact scan' })
    assert.equal([health.eventStore.status, health.eventStore.kind], ['up', 'postgres'])
    // Scores are computed by the service from stored term frequencies, as on the embedded default: a
    // clear match is found at the endpoint's defaults (minScore 0.5), and scores the same as there.
    const byDefault = ok(
      await svc.call('POST', '/api/v1/knowledge/search', { token: m.token, body: { query: 'crash log' } }),
    )
    assert.equal(
      byDefault.results.map((r: any) => r.id),
      [e.id],
    )
    const embedded = await startTestService()
    try {
      const w = await seedMember(embedded.call, 'owner')
      await twoEntries(embedded.call, w.token)
      const there = ok(
        await embedded.call('POST', '/api/v1/knowledge/search', {
          token: w.token,
          body: { query: 'crash log', mode: 'text', minScore: 0 },
        }),
      )
      assert.equal(
        there.results.map((r: any) => r.score),
        text.results.map((r: any) => r.score),
      )
    } finally {
      await embedded.stop()
    }
  })

  test('two service processes on one database: they share the upload limit, and a queued task runs once', async ({
    svc,
  }) => {
    // A DATA_DIR of its own: the processes share the database alone (uploaded files are in it).
    const second = await startTestService({}, await openPostgres(svc.deps.db.pool.options.connectionString!, 5))
    try {
      const m = await seedMember(svc.call, 'owner')
      const text = (i: number) => ({ token: m.token, body: { sourceType: 'text', content: `Note ${i} about otters.` } })
      const accepted = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? second : svc).call('POST', '/api/v1/knowledge/upload', text(i))),
      )
      const tasks = accepted.map((r) => ok(r, 202).taskId as string)
      expectError(await svc.call('POST', '/api/v1/knowledge/upload', text(20)), 429, 'RATE_LIMITED')
      expectError(await second.call('POST', '/api/v1/knowledge/upload', text(21)), 429, 'RATE_LIMITED')
      for (const id of tasks) {
        const done = await waitForTask(svc.call, m.token, id)
        assert.is(done.status, 'completed', JSON.stringify(done))
      }
      const { rows } = await svc.deps.db.pool.query(
        "SELECT count(*)::int AS n FROM es_events WHERE type = 'TaskCompleted' AND stream_id = ANY($1::text[])",
        [tasks.map((t) => `task-${t}`)],
      )
      assert.is(rows[0].n, 20, 'each task completed once')
    } finally {
      await second.stop()
    }
  })

  test("two service processes on one database share the public packs' limit per address", async () => {
    const db = await testPostgres()
    const url = db.url!
    const env = { PACK_REQUESTS_PER_MINUTE: '4' }
    const [a, b] = [
      await startTestService(env, await openPostgres(url, 5)),
      await startTestService(env, await openPostgres(url, 5)),
    ]
    try {
      // Counted before anything is looked up: requests for a pack that does not exist count too.
      const statuses = []
      for (const s of [a, b, a, b, a, b]) statuses.push((await fetch(`${s.url}/packs/no-such-pack`)).status)
      assert.equal(statuses, [404, 404, 404, 404, 429, 429])
    } finally {
      await a.stop()
      await b.stop()
      await db.close()
    }
  })

  test('concurrent duplicate slugs: exactly one workspace is created', async ({ svc }) => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        svc.call('POST', '/api/v1/admin/workspaces', { token: ADMIN, body: { name: 'Race', slug: 'race-slug' } }),
      ),
    )
    assert.equal(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409])
  })

  test('a rebuild while writes go on swaps in tables equal to the live ones', async ({ svc }) => {
    const { db, store } = svc.deps
    let writing = true
    const writes = (async () => {
      while (writing) await seedMember(svc.call, 'viewer')
    })()
    for (const p of svc.deps.runner.projectors) await rebuildProjector(db, store, p, pino({ level: 'silent' }))
    writing = false
    await writes
    assert.ok(await svc.deps.runner.waitFor(await store.headPosition(), 5000))
    for (const p of svc.deps.runner.projectors) {
      const live = await dump(db, p)
      await rebuildProjector(db, store, p, pino({ level: 'silent' }))
      assert.equal(await dump(db, p), live, p.name)
    }
  })
}
test.run()
