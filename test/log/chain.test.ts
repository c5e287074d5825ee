import { execFile } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { promisify } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const run = promisify(execFile)

/** The kb CLI against the running test service (KB_URL). */
const kb = (svc: TestService, ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', ...args], {
    env: { ...process.env, KB_URL: svc.url, KB_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent' },
  }).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  )

const test = suite<{ svc: TestService; m: Member }>('hash chain of the events: head, verification, the kb CLI')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const entry = async ({ svc, m }: { svc: TestService; m: Member }, content: string) =>
  ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: content.slice(0, 20), content, source: 'text' },
    }),
    201,
  )

const verify = async (svc: TestService, workspaceId?: string) =>
  ok(await svc.call('POST', '/api/v1/admin/verify-chain', { token: ADMIN, body: workspaceId ? { workspaceId } : {} }))

test('the head moves with each write of the workspace; owners and admins only', async (ctx) => {
  const { svc, m } = ctx
  const before = ok(await svc.call('GET', '/api/v1/audit/head', { token: m.token }))
  assert.equal([before.workspaceId, before.algorithm], [m.workspaceId, 'sha256'])
  assert.match(before.hash, /^[0-9a-f]{64}$/)
  await entry(ctx, 'Wombats dig burrows.')
  const after = ok(await svc.call('GET', '/api/v1/audit/head', { token: m.token }))
  assert.ok(after.position > before.position)
  assert.is.not(after.hash, before.hash)
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  expectError(await svc.call('GET', '/api/v1/audit/head', { token: viewer.token }), 403, 'FORBIDDEN')
})

test('an intact log verifies, and a content deletion still verifies by the hashes it kept', async (ctx) => {
  const { svc, m } = ctx
  const e = await entry(ctx, 'A secret that will be deleted.')
  ok(await svc.call('DELETE', `/api/v1/knowledge/${e.id}`, { token: m.token }))
  const report = await verify(svc, m.workspaceId)
  assert.is(report.broken, undefined)
  assert.ok(report.cut >= 1, 'the cut content is counted, not flagged')
  const head = ok(await svc.call('GET', '/api/v1/audit/head', { token: m.token }))
  assert.equal(report.chains, [{ chain: m.workspaceId, position: head.position, hash: head.hash }])
  const cli = await kb(svc, 'verify-chain', '--workspace', m.workspaceId)
  assert.is(cli.code, 0, cli.stderr)
  assert.match(cli.stdout, new RegExp(`chain ${m.workspaceId}: head ${head.hash} at position ${head.position}`))
  assert.match(cli.stdout, /verified \d+ events; [1-9]\d* cut by deletions/)
})

test('an event row edited in the database is found and named, by the API and the CLI', async (ctx) => {
  const { svc, m } = ctx
  const e = await entry(ctx, 'Numbats eat termites.')
  const pool = svc.deps.db.pool
  const { rows } = await pool.query<{ position: number; data: unknown }>(
    "SELECT position, data FROM es_events WHERE stream_id = $1 AND type = 'EntryCreated'",
    [`entry-${e.id}`],
  )
  await pool.query(
    `UPDATE es_events SET data = jsonb_set(data, '{content}', '"Numbats eat ants."') WHERE position = $1`,
    [rows[0].position],
  )
  try {
    const report = await verify(svc, m.workspaceId)
    assert.equal(
      [report.broken.position, report.broken.streamId, report.broken.revision],
      [rows[0].position, `entry-${e.id}`, 0],
    )
    assert.match(report.broken.reason, /edited/)
    const cli = await kb(svc, 'verify-chain')
    assert.is(cli.code, 1)
    assert.match(
      cli.stderr,
      new RegExp(`^broken at position ${rows[0].position} \\(stream entry-${e.id}, revision 0\\)`),
    )
  } finally {
    await pool.query('UPDATE es_events SET data = $2 WHERE position = $1', [rows[0].position, rows[0].data])
  }
  assert.is((await verify(svc)).broken, undefined, 'restored, it verifies again')
})

test('a row deleted, a link altered, content emptied by hand, the last event removed: each is found', async (ctx) => {
  const { svc, m } = ctx
  const first = await entry(ctx, 'Quokkas smile.')
  const second = await entry(ctx, 'Bilbies burrow.')
  const pool = svc.deps.db.pool
  const positionOf = async (id: string) =>
    (
      await pool.query<{ position: number }>('SELECT min(position) AS position FROM es_events WHERE stream_id = $1', [
        `entry-${id}`,
      ])
    ).rows[0].position
  const p1 = await positionOf(first.id)
  const p2 = await positionOf(second.id)
  await pool.query('CREATE TEMP TABLE saved AS SELECT * FROM es_events WHERE position = $1', [p1])
  const restore = async () => {
    await pool.query('DELETE FROM es_events WHERE position = $1', [p1])
    await pool.query('INSERT INTO es_events SELECT * FROM saved')
    assert.is((await verify(svc)).broken, undefined, 'restored, it verifies again')
  }
  // A row deleted takes its link with it: the next link of the chain no longer follows.
  await pool.query('DELETE FROM es_events WHERE position = $1', [p1])
  let report = await verify(svc, m.workspaceId)
  assert.ok(report.broken && report.broken.position > p1 && report.broken.position <= p2, JSON.stringify(report))
  assert.match(report.broken.reason, /deleted/)
  await restore()
  // A link altered in its row.
  await pool.query("UPDATE es_events SET hash = sha256('forged') WHERE position = $1", [p1])
  report = await verify(svc, m.workspaceId)
  assert.equal([report.broken?.position, report.broken?.streamId], [p1, `entry-${first.id}`])
  assert.match(report.broken.reason, /altered/)
  await restore()
  // Content emptied by hand and passed off as a cut (the stream's cut moved) is still found.
  await pool.query('UPDATE es_events SET data = NULL, metadata = NULL, type = NULL WHERE position = $1', [p1])
  await pool.query('INSERT INTO es_streams (stream_id, truncated_before) VALUES ($1, 1000000)', [`entry-${first.id}`])
  report = await verify(svc, m.workspaceId)
  assert.equal([report.broken?.position, report.broken?.streamId], [p1, `entry-${first.id}`])
  assert.match(report.broken.reason, /emptied/)
  await pool.query('DELETE FROM es_streams WHERE stream_id = $1', [`entry-${first.id}`])
  await restore()
  // The chain's last event removed: the walk ends short of the head kept apart.
  const { rows: last } = await pool.query<{ position: number }>(
    'SELECT max(position) AS position FROM es_events WHERE chain = $1',
    [m.workspaceId],
  )
  await pool.query('CREATE TEMP TABLE saved_last AS SELECT * FROM es_events WHERE position = $1', [last[0].position])
  await pool.query('DELETE FROM es_events WHERE position = $1', [last[0].position])
  report = await verify(svc, m.workspaceId)
  assert.match(report.broken?.reason ?? '', /last events were deleted/)
  await pool.query('INSERT INTO es_events SELECT * FROM saved_last')
  assert.is((await verify(svc)).broken, undefined)
})

test('batches from two appenders on one log, with refused revisions among them: the chain verifies', async (ctx) => {
  const { svc, m } = ctx
  const first = svc.deps.store
  // A second appender on the same database: another process, linking from heads it last saw.
  const second = await PostgresEventStore.open(svc.deps.db)
  const metadata = (workspaceId: string) => ({
    actor: { kind: 'system' as const, process: 'chain-test' },
    correlationId: randomUUID(),
    causationId: null,
    at: new Date().toISOString(),
    workspaceId,
  })
  const other = await seedMember(svc.call, 'owner')
  const appends = []
  for (let i = 0; i < 60; i++) {
    const store = i % 2 ? first : second
    const workspaceId = i % 3 ? m.workspaceId : other.workspaceId
    const event = { id: randomUUID(), type: 'ChainTested', data: { i, text: 'é'.repeat(i), nested: { b: 1, a: [i] } } }
    appends.push(store.append(`chaintest-${i % 7}`, [{ ...event, metadata: metadata(workspaceId) }], 'any'))
    // One in five expects a revision the stream does not have: refused, the rest of its batch goes on.
    if (i % 5 === 0)
      appends.push(
        store.append(`chaintest-${i % 7}`, [{ ...event, id: randomUUID(), metadata: metadata(workspaceId) }], 999).then(
          () => 'appended',
          (e: Error) => e.name,
        ),
      )
  }
  const outcomes = await Promise.all(appends)
  assert.is(outcomes.filter((o) => o === 'WrongExpectedVersion').length, 12)
  await second.close()
  for (const workspaceId of [m.workspaceId, other.workspaceId, undefined]) {
    const report = await verify(svc, workspaceId)
    assert.is(report.broken, undefined, JSON.stringify(report.broken))
  }
  // An event moved to another revision is named, though its content is unchanged.
  const { rows } = await svc.deps.db.pool.query<{ position: number }>(
    "SELECT position FROM es_events WHERE stream_id = 'chaintest-3' ORDER BY revision DESC LIMIT 1",
  )
  await svc.deps.db.pool.query('UPDATE es_events SET revision = revision + 1000 WHERE position = $1', [
    rows[0].position,
  ])
  const moved = await verify(svc)
  assert.equal(
    [moved.broken?.position, moved.broken?.reason],
    [rows[0].position, "the event was moved: its revision does not follow its stream's event before it"],
  )
  await svc.deps.db.pool.query('UPDATE es_events SET revision = revision - 1000 WHERE position = $1', [
    rows[0].position,
  ])
  assert.is((await verify(svc)).broken, undefined)
})

test.run()
