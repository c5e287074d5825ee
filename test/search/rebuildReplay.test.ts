import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Question, SETS, loadDocs, loadQuestions } from '../../scripts/eval/sets'
import { freePort, kbCli, start } from '../helpers/process'
import { ADMIN, type Call, client, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite("a rebuild's replay: the workspace's own queries asked of the old and the new tables before a swap")

/** Questions of the tuning set whose judged documents make the workspace (each cut short: the test stays quick). */
const QUESTIONS = loadQuestions(SETS[0])
  .filter((q) => q.kind !== 'none')
  .slice(0, 24)
const DOCS = (() => {
  const judged = new Set(QUESTIONS.flatMap((q) => Object.keys(q.judgments)))
  return loadDocs(SETS[0])
    .filter((d) => judged.has(d.id))
    .map((d) => ({ ...d, text: d.text.slice(0, 6000) }))
})()

/** A workspace of the evaluation set's documents (each with its id as an external id), and its questions asked. */
const evalWorkspace = async (call: Call) => {
  const m = await seedMember(call)
  const entryOf = new Map<string, string>()
  for (const d of DOCS) {
    const body = { title: d.title, content: d.text, source: 'text', externalReferenceIds: { doc: d.id } }
    entryOf.set(d.id, ok(await call('POST', '/api/v1/knowledge', { token: m.token, body }), 201).id)
  }
  // Each question asked in text and in hybrid mode, and a few with a filter: the log the replay reads.
  const ask = (q: Question, mode: string, filters: object = {}) =>
    call('POST', '/api/v1/knowledge/search', {
      token: m.token,
      body: { query: q.query, mode, limit: 10, minScore: 0, ...filters },
    })
  for (const q of QUESTIONS) {
    ok(await ask(q, 'text'))
    ok(await ask(q, 'hybrid'))
  }
  for (const q of QUESTIONS.slice(0, 3)) ok(await ask(q, 'text', { source: 'manual' }))
  return { m, entryOf, asked: QUESTIONS.length * 2 + 3 }
}

/** The first result of a text search for a question. */
const firstResult = async (call: Call, token: string, q: Question) =>
  ok(
    await call('POST', '/api/v1/knowledge/search', {
      token,
      body: { query: q.query, mode: 'text', limit: 10, minScore: 0 },
    }),
  ).results[0]?.id as string | undefined

const rebuildEvent = async (call: Call, rebuildId: string) => {
  const stream = ok(await call('GET', `/api/v1/admin/streams/rebuild-${rebuildId}`, { token: ADMIN }))
  assert.is(stream.events.length, 1)
  assert.is(stream.events[0].type, 'RebuildReplayed')
  return stream.events[0]
}

test('a rebuild with the same settings answers as the tables in service: overlap 1.0, and it cuts over', async () => {
  const svc = await startTestService()
  try {
    const { m, entryOf, asked } = await evalWorkspace(svc.call)
    // A query that served an entry deleted since is left out: the tables in service no longer have it either.
    const gone = entryOf.get(Object.keys(QUESTIONS[0].judgments)[0])!
    ok(await svc.call('DELETE', `/api/v1/knowledge/${gone}`, { token: m.token }))
    const judgments = QUESTIONS.map(({ query, judgments }) => ({ query, judgments }))
    const done = ok(
      await svc.call('POST', '/api/v1/admin/projections/chunks/rebuild', {
        token: ADMIN,
        body: { replay: 200, judgments },
      }),
    )
    const { replay } = done
    assert.is(replay.verdict, 'allowed')
    assert.equal(
      done.rebuilt.map((r: { name: string }) => r.name),
      ['chunks'],
    )
    assert.ok(replay.skipped >= 2, `the queries that served the deleted entry are skipped (${replay.skipped})`)
    assert.is(replay.overall.queries + replay.skipped, asked)
    assert.is(replay.overall.overlap, 1)
    assert.ok(Math.abs(replay.overall.rbo - 1) < 1e-9, `rbo ${replay.overall.rbo}`)
    assert.is(replay.overall.lostFirst, 0)
    assert.is(replay.overall.emptyNow, 0)
    assert.ok(replay.overall.latency.live.p50 > 0 && replay.overall.latency.shadow.p95 > 0)
    assert.equal(replay.changed, [])
    assert.equal(
      replay.workspaces.map((w: { workspaceId: string }) => w.workspaceId),
      [m.workspaceId],
    )
    const { judged } = replay.overall
    assert.ok(judged.questions >= QUESTIONS.length - 1, `judged ${judged.questions}`)
    assert.ok(judged.live > 0.3, `nDCG@10 ${judged.live}`)
    assert.is(judged.shadow, judged.live)
    // The event keeps the verdict and the figures, never what people asked.
    const event = await rebuildEvent(svc.call, replay.rebuildId)
    assert.is(event.data.verdict, 'allowed')
    assert.is(event.data.overall.queries, replay.overall.queries)
    assert.not.ok(JSON.stringify(event).includes(QUESTIONS[1].query), 'no query text in the event')
    assert.is(event.metadata.workspaceId, undefined, "not in any workspace's audit trail")
    // The rebuilt tables answer as the old ones did.
    assert.is(await firstResult(svc.call, m.token, QUESTIONS[1]), entryOf.get(Object.keys(QUESTIONS[1].judgments)[0]))
  } finally {
    await svc.stop()
  }
})

test('bad replay options are refused with what is wrong, and rebuild nothing', async () => {
  const svc = await startTestService()
  try {
    const m = await seedMember(svc.call)
    const rebuild = (body: object, token = ADMIN) =>
      svc.call('POST', '/api/v1/admin/projections/chunks/rebuild', { token, body })
    const before = ok(await svc.call('GET', '/api/v1/admin/projections', { token: ADMIN }))
    for (const body of [
      { replay: 0 },
      { replay: 10_001 },
      { replay: 5, maxLost: 1.5 },
      { force: true },
      { maxLost: 0.2 },
      { judgments: { query: 'x' } },
      { replay: 5, judgments: [{ query: 'x', judgments: { a: 7 } }] },
    ])
      expectError(await rebuild(body), 400, 'VALIDATION_ERROR')
    expectError(await rebuild({ replay: 5 }, m.token), 401, 'INVALID_TOKEN')
    expectError(
      await svc.call('POST', '/api/v1/admin/projections/nope/rebuild', { token: ADMIN, body: {} }),
      404,
      'NOT_FOUND',
    )
    const after = ok(await svc.call('GET', '/api/v1/admin/projections', { token: ADMIN }))
    assert.equal(after.head, before.head, 'nothing appended')
  } finally {
    await svc.stop()
  }
})

test('judged questions count where no one searched yet; nothing to compare lets the swap go ahead', async () => {
  const svc = await startTestService()
  try {
    const m = await seedMember(svc.call)
    const q = QUESTIONS[2]
    for (const d of DOCS.filter((d) => d.id in q.judgments)) {
      const body = { title: d.title, content: d.text, source: 'text', externalReferenceIds: { doc: d.id } }
      ok(await svc.call('POST', '/api/v1/knowledge', { token: m.token, body }), 201)
    }
    const { replay } = ok(
      await svc.call('POST', '/api/v1/admin/projections/chunks/rebuild', {
        token: ADMIN,
        body: { judgments: [{ query: q.query, judgments: q.judgments }] },
      }),
    )
    assert.is(replay.verdict, 'allowed')
    assert.is(replay.overall.queries, 0)
    assert.is(replay.overall.overlap, 1, 'nothing compared, nothing disagrees')
    assert.equal(
      replay.workspaces.map((w: { workspaceId: string }) => w.workspaceId),
      [m.workspaceId],
    )
    assert.is(replay.overall.judged.questions, 1)
    assert.ok(replay.overall.judged.live > 0, 'the judged entries are found')
    assert.is(replay.overall.judged.shadow, replay.overall.judged.live)
  } finally {
    await svc.stop()
  }
})

/** The kb CLI, and how it exited. */
const kb = async (dataDir: string, port: number, env: Record<string, string>, ...args: string[]) => {
  try {
    const { stdout, stderr } = await kbCli(dataDir, port, args, env)
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

const rebuildIdOf = (stdout: string) => {
  const id = /\(rebuild ([0-9a-f-]{36})\)/.exec(stdout)?.[1]
  assert.ok(id, stdout)
  return id as string
}

test(
  'kb projections rebuild --replay: a broken index is refused and the tables in service stay; --force cuts over, ' +
    'and the events say so',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-replay-'))
    const port = await freePort()
    const judgmentsFile = path.join(dataDir, 'judgments.json')
    fs.writeFileSync(judgmentsFile, JSON.stringify(QUESTIONS))
    const broken = { KB_TEST_GARBLED_INDEX: 'true', NODE_ENV: 'test' }
    const q = QUESTIONS[1]
    try {
      let proc = await start(dataDir, port)
      let call = client(proc.base)
      const { m, entryOf } = await evalWorkspace(call)
      const expected = entryOf.get(Object.keys(q.judgments)[0])
      // Through the running service (the CLI calls its admin API): the same settings cut over.
      const same = await kb(
        dataDir,
        port,
        {},
        'projections',
        'rebuild',
        'chunks',
        '--replay',
        '100',
        '--judgments',
        judgmentsFile,
      )
      assert.is(same.code, 0, same.stderr)
      assert.match(same.stdout, /overlap@10 1\.000, RBO 1\.000, first result lost 0 \(0\.0%\)/, same.stdout)
      assert.match(same.stdout, /nDCG@10 (\d\.\d+) in service, \1 rebuilt/)
      assert.match(same.stdout, /verdict: cut over \(at most 10\.0% /)
      const badGrades = path.join(dataDir, 'bad.json')
      fs.writeFileSync(badGrades, JSON.stringify([{ query: 'x', judgments: { a: 'relevant' } }]))
      for (const mistake of [['--max-lost', '3'], ['--force'], ['--replay', '--bogus'], ['--judgments', badGrades]]) {
        const wrong = await kb(dataDir, port, {}, 'projections', 'rebuild', 'chunks', ...mistake)
        assert.is(wrong.code, 2, `${mistake.join(' ')}: ${wrong.stdout}`)
      }
      proc.child.kill('SIGTERM')
      assert.is(await proc.exited, 0)

      // On the files (no service): the index rebuilt garbled loses the first result of most queries.
      const refused = await kb(dataDir, port, broken, 'projections', 'rebuild', 'chunks', '--replay')
      assert.is(refused.code, 1, refused.stdout)
      assert.match(refused.stdout, /verdict: refused/)
      assert.match(refused.stdout, /changed most:/)
      assert.match(refused.stderr, /not swapped in/)
      assert.not.match(refused.stdout, /^rebuilt chunks/m)
      proc = await start(dataDir, port)
      call = client(proc.base)
      assert.is(await firstResult(call, m.token, q), expected, 'the tables in service stay')
      proc.child.kill('SIGTERM')
      assert.is(await proc.exited, 0)

      const forced = await kb(
        dataDir,
        port,
        broken,
        'projections',
        'rebuild',
        'chunks',
        '--replay',
        '--max-lost',
        '5%',
        '--force',
      )
      assert.is(forced.code, 0, forced.stderr)
      assert.match(forced.stdout, /verdict: cut over, forced \(at most 5\.0% /)
      assert.match(forced.stdout, /^rebuilt chunks: /m)
      proc = await start(dataDir, port)
      call = client(proc.base)
      assert.is.not(await firstResult(call, m.token, q), expected, 'the garbled tables are in service now')
      const [first, second] = [rebuildIdOf(refused.stdout), rebuildIdOf(forced.stdout)]
      assert.is((await rebuildEvent(call, first)).data.verdict, 'refused')
      const event = await rebuildEvent(call, second)
      assert.is(event.data.verdict, 'forced')
      assert.is(event.data.maxLost, 0.05)
      assert.ok(event.data.overall.lostFirst / event.data.overall.queries > 0.05)
      assert.equal(event.metadata.actor, { kind: 'system', process: 'kb' })
      proc.child.kill('SIGTERM')
      assert.is(await proc.exited, 0)
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  },
)

test.run()
