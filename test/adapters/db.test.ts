import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { PGlite } from '@electric-sql/pglite'
import { type Database, inTransaction, openPglite } from '../../adapters/db'
import { testPglite } from '../../testkit/db'

const test = suite<{ db: Database }>('PGlite connection')
test.before(async (ctx) => {
  ctx.db = await testPglite()
})
test.after(async ({ db }) => db.close())

test('a long transaction lets requests through: one arriving meanwhile is answered before it ends', async ({ db }) => {
  const server = http.createServer((_req, res) => res.end('ok'))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const { port } = server.address() as { port: number }
    let answeredAt = Infinity
    const request = fetch(`http://127.0.0.1:${port}/`).then(async (r) => {
      await r.text()
      answeredAt = performance.now()
    })
    const started = performance.now()
    // Hundreds of short statements in one transaction: PGlite settles each without I/O.
    await inTransaction(db.pool, async (tx) => {
      for (let i = 0; i < 300; i++) await tx.query('SELECT count(*) FROM generate_series(1, 2000)')
    })
    const endedAt = performance.now()
    await request
    assert.ok(endedAt - started > 50, `the transaction took ${endedAt - started} ms; it must be long enough to matter`)
    assert.ok(
      answeredAt < endedAt,
      `answered ${(answeredAt - started).toFixed(0)} ms in, the transaction ended at ` +
        `${(endedAt - started).toFixed(0)} ms`,
    )
  } finally {
    server.close()
  }
})

test(
  'a parameterised statement reaches PGlite in one call; errors still answer, and the connection goes ' + 'on',
  async () => {
    const pglite = await PGlite.create()
    const calls: number[] = []
    const exec = pglite.execProtocolStream.bind(pglite)
    pglite.execProtocolStream = (message, options) => {
      calls.push(message[0])
      return exec(message, options)
    }
    const db = await openPglite(pglite)
    try {
      await db.pool.query('SELECT 1') // the connection's own start-up
      calls.length = 0
      const { rows } = await db.pool.query<{ x: number; s: string }>('SELECT $1::int + 1 AS x, $2::text AS s', [
        41,
        "a'b",
      ])
      assert.equal(rows, [{ x: 42, s: "a'b" }])
      // Parse, Bind, Describe, Execute and Sync went through as one buffer, which starts with the Parse.
      assert.equal(calls, ['P'.charCodeAt(0)])

      let failed: Error | undefined
      await db.pool.query('SELECT 1 / $1::int AS x', [0]).catch((e: Error) => (failed = e))
      assert.match(String(failed?.message), /division by zero/)

      await inTransaction(db.pool, async (tx) => {
        await tx.query('CREATE TABLE t (n int)')
        for (let i = 0; i < 3; i++) await tx.query('INSERT INTO t VALUES ($1)', [i])
      })
      const sum = await db.pool.query<{ n: number }>('SELECT sum(n)::int AS n FROM t')
      assert.is(sum.rows[0].n, 3)
    } finally {
      await db.close()
    }
  },
)

test(
  'a statement right after a failed one is answered: the client pg makes anew is not ended with the old ' + 'one',
  async () => {
    const db = await openPglite(await PGlite.create())
    try {
      for (const bad of [
        'SELECT nope FROM pg_class WHERE relname = $1',
        'SELECT 1 WHERE $1::int = 1',
        "SELECT 1 / ($1::text <> 'x')::int",
      ]) {
        let failed = false
        try {
          await db.pool.query(bad, ['x'])
        } catch {
          failed = true
        }
        assert.ok(failed, bad)
        // At once (as a retry after a conflict would): the failed client's end used to arrive here.
        const { rows } = await db.pool.query<{ n: number }>('SELECT $1::int AS n', [7])
        assert.equal(rows, [{ n: 7 }])
      }
    } finally {
      await db.close()
    }
  },
)

test(
  "a data directory is held by one process: a second open is refused while the first runs; a dead holder's " +
    'lock is taken over',
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-lock-'))
    try {
      const dataDir = path.join(dir, 'pg')
      // Another process holding the directory: this test's parent (alive) stands for it.
      fs.mkdirSync(dataDir, { recursive: true })
      fs.writeFileSync(`${dataDir}.lock`, String(process.ppid))
      let refused = ''
      await openPglite(dataDir).catch((e: Error) => (refused = e.message))
      assert.match(refused, new RegExp(`in use by process ${process.ppid}`))
      // A holder that is gone (killed): its lock is stale.
      const child = spawnSync(process.execPath, ['-e', 'process.pid'])
      fs.writeFileSync(`${dataDir}.lock`, String(child.pid))
      const db = await openPglite(dataDir)
      assert.is(fs.readFileSync(`${dataDir}.lock`, 'utf8'), String(process.pid))
      assert.is((await db.pool.query('SELECT 1 AS one')).rows[0].one, 1)
      await db.close()
      assert.not.ok(fs.existsSync(`${dataDir}.lock`))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  },
)

test.run()
