// PGlite runs no autovacuum: the service analyzes its search tables when enough of their rows
// changed, and vacuums them when enough are dead and the database is quiet.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'
import { until } from '../helpers/until'
import { needsAnalyze, needsVacuum } from '../../workers/maintenance'

const test = suite<{ svc: TestService; m: Member }>(
  'search tables kept on PGlite: analyze after bulk changes, vacuum when quiet',
)
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call)
})
test.after(async ({ svc }) => svc.stop())

const stats = async (svc: TestService, table: string) =>
  (
    await svc.deps.db.pool.query<{
      n_live_tup: number
      n_dead_tup: number
      n_mod_since_analyze: number
      last_analyze: Date | null
      last_vacuum: Date | null
    }>(
      `SELECT n_live_tup, n_dead_tup, n_mod_since_analyze, last_analyze, last_vacuum FROM pg_stat_user_tables
       WHERE relname = $1`,
      [table],
    )
  ).rows[0]

test('the thresholds are the server autovacuum rules: 50 rows plus 10 % changed, 50 plus 20 % dead', () => {
  const table = { relname: 't', n_live_tup: 1000, n_dead_tup: 0, n_mod_since_analyze: 150 }
  assert.is(needsAnalyze(table), false)
  assert.is(needsAnalyze({ ...table, n_mod_since_analyze: 151 }), true)
  assert.is(needsVacuum({ ...table, n_dead_tup: 250 }), false)
  assert.is(needsVacuum({ ...table, n_dead_tup: 251 }), true)
})

test('a bulk load is analyzed within seconds, not at the next minute; rewrites are vacuumed once quiet', async ({
  svc,
  m,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const ids: string[] = []
  for (let i = 0; i < 120; i++) {
    const content = `Entry ${i} about wombats and their burrows. `.repeat(40)
    ids.push(ok(await call('POST', '/api/v1/knowledge', { title: `Wombat ${i}`, content, source: 'text' }), 201).id)
  }
  // The planner's row count (set by ANALYZE) follows the load within the rule's slack, within seconds rather than
  // at a minute's timer.
  const planned = async () =>
    (
      await svc.deps.db.pool.query<{ reltuples: number; rows: number }>(
        `SELECT (SELECT reltuples FROM pg_class WHERE relname = 'kb_chunks') AS reltuples,
           (SELECT count(*)::int FROM kb_chunks) AS rows`,
      )
    ).rows[0]
  await until(
    'kb_chunks analyzed after the load',
    async () => {
      const p = await planned()
      return p.rows >= 120 && p.reltuples > 0 && p.rows - p.reltuples <= 50 + 0.1 * p.rows
    },
    20_000,
  )
  // Rewrites leave dead rows; once nothing else runs, the table is vacuumed.
  for (const id of ids.slice(0, 80))
    ok(await call('PATCH', `/api/v1/knowledge/${id}`, { content: 'Rewritten: wombats sleep by day. '.repeat(30) }))
  // Asked every 2.5 s: a client asking every few milliseconds would keep the database busy.
  for (let i = 0; i < 20 && (await stats(svc, 'kb_chunks')).last_vacuum === null; i++)
    await new Promise((r) => setTimeout(r, 2500))
  const vacuumed = await stats(svc, 'kb_chunks')
  assert.ok(vacuumed.last_vacuum !== null, `vacuumed: ${JSON.stringify(vacuumed)}`)
  assert.ok(!needsVacuum({ relname: 'kb_chunks', ...vacuumed }), 'no more dead rows than the rule allows')
  const found = ok(
    await call('POST', '/api/v1/knowledge/search', { query: 'wombats sleep', mode: 'text', minScore: 0 }),
  )
  assert.is(found.results.length, 5)
})

test('no vacuum while the model embeds a long document: dead rows wait until the load has ended', async ({
  svc,
  m,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const vacuums = async () =>
    (
      await svc.deps.db.pool.query<{ n: number }>(
        "SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname = 'kb_chunks'",
      )
    ).rows[0].n
  // The model holds on one document's texts, as it does for minutes on a long manual.
  const embedder = svc.deps.embedder
  const embed = embedder.embed.bind(embedder)
  let release = () => undefined as void
  const held = new Promise<void>((r) => (release = r))
  embedder.embed = async (texts) => {
    if (texts.some((t) => t.includes('Okapi'))) await held
    return embed(texts)
  }
  try {
    const long = call('POST', '/api/v1/knowledge', {
      title: 'Okapi',
      content: 'Okapis live in the rainforest of the Congo. '.repeat(200),
      source: 'text',
    })
    const ids: string[] = []
    for (let i = 0; i < 60; i++) {
      const content = `Entry ${i} about numbats and termites. `.repeat(40)
      ids.push(ok(await call('POST', '/api/v1/knowledge', { title: `Numbat ${i}`, content, source: 'text' }), 201).id)
    }
    for (const round of [1, 2])
      for (const id of ids) {
        const content = `Rewritten ${round}: numbats eat by day. `.repeat(30)
        ok(await call('PATCH', `/api/v1/knowledge/${id}`, { content }))
      }
    const before = await vacuums()
    // Quiet for eight seconds (the upkeep waits for two), with more dead rows than the rule allows.
    await new Promise((r) => setTimeout(r, 8000))
    const table = await stats(svc, 'kb_chunks')
    assert.ok(needsVacuum({ relname: 'kb_chunks', ...table }), `dead rows: ${JSON.stringify(table)}`)
    assert.is(await vacuums(), before, 'no vacuum while the model embeds')
    release()
    ok(await long, 201)
    // Asked every 2.5 s, as above.
    for (let i = 0; i < 12 && (await vacuums()) === before; i++) await new Promise((r) => setTimeout(r, 2500))
    assert.ok((await vacuums()) > before, 'vacuumed once the load ended')
  } finally {
    release()
    embedder.embed = embed
  }
})

test.run()
