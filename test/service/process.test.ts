import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { openPglite } from '../../adapters/db'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { pgTextsearchIndex } from '../../adapters/textIndex/pgTextsearch'
import { projectors as createProjectors } from '../../app/capabilities'
import { rebuildProjector } from '../../projections/rebuild'
import { dump } from '../../testkit/rows'
import { freePort, kbCli, start } from '../helpers/process'
import { ADMIN, client, ok, seedMember } from '../helpers/service'

const run = promisify(execFile)

const kb = (dataDir: string, port: number, ...args: string[]) => kbCli(dataDir, port, args)

const test = suite('the service as a process: SIGKILL recovery, graceful shutdown, the kb CLI')

test(
  'killed during a burst of writes: every acknowledged write survives, projections resume and equal a ' + 'rebuild',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-crash-'))
    const port = await freePort()
    try {
      let proc = await start(dataDir, port)
      const call = client(proc.base)
      const m = await seedMember(call, 'owner')
      const acknowledged: { id: string; token: string }[] = []
      let stop = false
      const writers = Array.from({ length: 6 }, async () => {
        while (!stop) {
          try {
            const r = await call('POST', '/api/v1/admin/tokens', {
              token: ADMIN,
              body: { userId: m.userId, workspaceId: m.workspaceId },
            })
            if (r.status === 201) acknowledged.push({ id: r.body.data.id, token: r.body.data.access_token })
          } catch {
            return // the connection died with the process
          }
        }
      })
      while (acknowledged.length < 30) await new Promise((r) => setTimeout(r, 20))
      proc.child.kill('SIGKILL')
      stop = true
      await Promise.all(writers)
      await proc.exited

      proc = await start(dataDir, port)
      const again = client(proc.base)
      // Projections resume from their checkpoints: wait until they report no lag.
      for (let i = 0; i < 100; i++) {
        const status = ok(await again('GET', '/api/v1/admin/projections', { token: ADMIN }))
        if (status.projections.every((p: any) => p.lag === 0)) break
        await new Promise((r) => setTimeout(r, 100))
      }
      for (const a of acknowledged) ok(await again('POST', '/api/v1/auth/validate', { token: a.token }))

      // The CLI talks to the running service (PGlite allows one process).
      const status = await kb(dataDir, port, 'projections', 'status')
      assert.match(status.stdout, /accounts\s+position\s+\d+\s+lag\s+0/)

      // Nothing else may open DATA_DIR while the service holds it: not the CLI looking for the service
      // on another port, not a second service. Each says why in one line (no stack) and exits non-zero.
      const refusedWith = (p: Promise<unknown>) =>
        p.then(
          () => {
            throw new Error('it should have failed')
          },
          (e: { code: number; stderr: string }) => e,
        )
      const cli = await refusedWith(kb(dataDir, port + 1, 'projections', 'status'))
      assert.is(cli.code, 1)
      assert.match(cli.stderr, /in use by process \d+/)
      assert.not.match(cli.stderr, /\n\s+at /)
      const second = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          PORT: String(port + 1),
          KB_ADMIN_TOKEN: ADMIN,
          LOG_LEVEL: 'silent',
          EMBEDDER: 'hashing',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      let secondErr = ''
      second.stderr.on('data', (d) => (secondErr += d))
      assert.is(await new Promise((resolve) => second.on('exit', resolve)), 1)
      assert.match(secondErr, /^Cannot start: .* in use by process \d+/)
      // Operator mistakes: an unknown workspace to re-embed, a KB_URL where nothing answers.
      const unknown = await refusedWith(kb(dataDir, port, 'reembed', '--workspace', 'no-such-workspace'))
      assert.equal([unknown.code, unknown.stderr.trim()], [2, 'NOT_FOUND: workspace no-such-workspace not found'])
      ok(
        await again('POST', '/api/v1/knowledge', {
          token: m.token,
          body: { title: 'Vectors', source: 'text', content: 'Embedded by the hashing embedder.' },
        }),
        201,
      )
      // A stream read through the service pages on to its end; a refused admin token is a failure.
      ok(await again('DELETE', `/api/v1/admin/tokens/${acknowledged[1].id}`, { token: ADMIN }))
      const paged = await run(
        process.execPath,
        ['--import', 'tsx', 'scripts/kb.ts', 'stream', `token-${acknowledged[1].id}`],
        {
          env: { ...process.env, PORT: String(port), KB_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent', KB_STREAM_PAGE: '1' },
        },
      )
      assert.equal(
        paged.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).type),
        ['AccessTokenIssued', 'AccessTokenRevoked'],
      )
      const wrongToken = await refusedWith(
        run(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', 'projections', 'status'], {
          env: {
            ...process.env,
            PORT: String(port),
            KB_ADMIN_TOKEN: 'not-the-admin-token-0123456789',
            LOG_LEVEL: 'silent',
          },
        }),
      )
      assert.is(wrongToken.code, 1)
      assert.match(wrongToken.stderr, /^INVALID_TOKEN: /)
      const nowhere = await refusedWith(
        run(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', 'projections', 'status'], {
          env: { ...process.env, KB_URL: `http://127.0.0.1:${port + 2}`, KB_ADMIN_TOKEN: ADMIN },
        }),
      )
      assert.is(nowhere.code, 1)
      assert.match(nowhere.stderr, /^kb: fetch failed \(connect ECONNREFUSED 127\.0\.0\.1:\d+\)\n$/)

      // A graceful stop leaves PGlite whole: reopen the files, compare live tables to a rebuild.
      proc.child.kill('SIGTERM')
      assert.is(await proc.exited, 0)
      const db = await openPglite(path.join(dataDir, 'pg'))
      const store = await PostgresEventStore.open(db)
      for (const p of createProjectors({
        embedder: hashingEmbedder(),
        vectors: true,
        textIndex: pgTextsearchIndex(),
      })) {
        const live = await dump(db, p)
        await rebuildProjector(db, store, p, pino({ level: 'silent' }))
        assert.equal(await dump(db, p), live, p.name)
      }
      const tokens = await db.pool.query('SELECT count(*)::int AS n FROM access_tokens WHERE user_id = $1', [m.userId])
      assert.ok(tokens.rows[0].n >= acknowledged.length + 1)
      await store.close()
      await db.close()

      // With no service running, the CLI opens DATA_DIR itself.
      const stream = await kb(dataDir, port, 'stream', `token-${acknowledged[0].id}`)
      const lines = stream.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
      assert.equal(
        lines.map((e) => e.type),
        ['AccessTokenIssued'],
      )
      assert.not.ok(stream.stdout.includes(acknowledged[0].token))
      // A rebuild keeps the vectors' model: another EMBEDDER than the one that made them is refused.
      const otherModel = await refusedWith(
        run(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', 'projections', 'rebuild', 'chunks'], {
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            PORT: String(port),
            KB_ADMIN_TOKEN: ADMIN,
            LOG_LEVEL: 'silent',
            EMBEDDER: 'local',
          },
        }),
      )
      assert.is(otherModel.code, 2)
      assert.match(
        otherModel.stderr,
        /^the read models hold vectors of hashing-\S+, and EMBEDDER makes use-lite\S*: rebuild with the service's/,
      )
      assert.match((await kb(dataDir, port, 'projections', 'rebuild', 'chunks')).stdout, /^rebuilt chunks: \d+ events/)
      // A DATA_DIR with no database is a mistake, not an empty knowledge base.
      const empty = await kb(path.join(dataDir, 'typo'), port, 'projections', 'status').then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      )
      assert.is(empty?.code, 2)
      assert.match(empty!.stderr, /^no database in .*typo\/pg: is DATA_DIR right\?/)
      assert.not.ok(fs.existsSync(path.join(dataDir, 'typo')))
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  },
)

test('a bad configuration value stops the start with one line naming the variable', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { ...process.env, PORT: 'abc' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let err = ''
  child.stderr.on('data', (d) => (err += d))
  const code = await new Promise((resolve) => child.on('exit', resolve))
  assert.is(code, 1)
  assert.is(err.trim(), 'Invalid configuration: PORT must be an integer between 0 and 65535 (got "abc")')
})

test('an event store that cannot be reached stops the start with one line naming it (no password)', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-esdb-'))
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        PORT: '0',
        EMBEDDER: 'hashing',
        LOG_LEVEL: 'silent',
        EVENTSTORE_URL: 'kurrentdb://admin:secret@127.0.0.1:1?tls=false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let err = ''
    child.stderr.on('data', (d) => (err += d))
    const code = await new Promise((resolve) => child.on('exit', resolve))
    assert.is(code, 1)
    assert.match(err, /^Cannot start: cannot reach the event store at kurrentdb:\/\/127\.0\.0\.1:1\?tls=false: /)
    assert.not.match(err, /secret/)
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test(
  'the kb CLI: --help lists every command and the stream ids; a mistyped command is answered with the ' + 'nearest',
  async () => {
    const help = await kb(os.tmpdir(), 3000, '--help')
    for (const command of [
      'projections status',
      'projections rebuild',
      'stream <streamId>',
      'reembed',
      'entry-<id>',
      'page-<id>',
      'task-<id>',
    ]) {
      assert.ok(help.stdout.includes(command), command)
    }
    const typo = await kb(os.tmpdir(), 3000, 'projections', 'stauts').then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    )
    assert.is(typo?.code, 2)
    assert.match(
      typo!.stderr,
      /^kb: unknown command "projections stauts"; did you mean "projections status"\?\nusage: /,
    )
  },
)

test.run()
