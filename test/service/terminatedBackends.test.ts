// Every database connection of the service terminated by the server, three times a few seconds
// apart, while entries are written, files are processed and projections run: the process lives,
// answers after each round, and every write it acknowledged is there.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { freshPostgres, serverUrl } from '../../testkit/db'
import { upload } from '../helpers/ingestion'
import { type Proc, freePort, start } from '../helpers/process'
import { client, ok, seedMember } from '../helpers/service'
import { until } from '../helpers/until'

const test = suite('terminated database connections: the process recovers and keeps every acknowledged write')
const amqpUrl = process.env.TEST_AMQP_URL ?? ''
const server = serverUrl ?? ''
const ROUNDS = 3

if (!server || !amqpUrl) {
  test.skip('terminated backends (TEST_DATABASE_URL or TEST_AMQP_URL unset)', () => undefined)
} else {
  test(`${ROUNDS} rounds of pg_terminate_backend on every backend, during writes and tasks`, async () => {
    const db = await freshPostgres(server)
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-terminate-'))
    const dbName = new URL(db.url!).pathname.slice(1)
    let proc: Proc | undefined
    try {
      proc = await start(dataDir, await freePort(), {
        DATABASE_URL: db.url!,
        AMQP_URL: amqpUrl,
        AMQP_QUEUE: `kb.terminate.${randomUUID()}`,
      })
      const base = proc.base
      const call = client(base)
      const m = await seedMember(call)
      const acknowledged: string[] = []
      const tasks: string[] = []
      let writing = true
      // Writes and tasks, all the time; failures during a round are expected, acknowledgements are kept.
      const writer = async (w: number) => {
        for (let n = 0; writing; n++) {
          const i = w * 100_000 + n
          try {
            const r = await call('POST', '/api/v1/knowledge', {
              token: m.token,
              body: { title: `Write ${i}`, source: 'text', content: `Echidnas lay eggs, note ${i}.` },
            })
            if (r.status === 201) acknowledged.push(r.body.data.id)
            if (n % 5 === 0) {
              const file = await upload(
                base,
                m.token,
                { title: `File ${i}`, source: 'file' },
                { bytes: Buffer.from(`# File ${i}\n\nPlatypuses hunt by electroreception.\n`), name: `f${i}.md` },
              )
              if (file.status === 201) {
                acknowledged.push(file.body.data.id)
                tasks.push(file.body.data.taskId)
              }
            }
          } catch {}
          await new Promise((r) => setTimeout(r, 20))
        }
      }
      const writers = Promise.all([0, 1, 2, 3].map(writer))
      const admin = new pg.Client({ connectionString: server })
      await admin.connect()
      try {
        for (let round = 0; round < ROUNDS; round++) {
          await new Promise((r) => setTimeout(r, 3000))
          // A round: every backend terminated, five times 150 ms apart (a failover's reconnect storm), so
          // that connections lent out mid-transaction are among those cut.
          for (let cut = 0; cut < 5; cut++) {
            const { rowCount } = await admin.query(
              'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
              [dbName],
            )
            if (cut === 0) assert.ok((rowCount ?? 0) > 0, `round ${round} terminated the service's backends`)
            await new Promise((r) => setTimeout(r, 150))
          }
          // The service answers again: a write goes through and is read back.
          await until(
            `an acknowledged write after round ${round}`,
            async () => {
              const r = await call('POST', '/api/v1/knowledge', {
                token: m.token,
                body: { title: `After round ${round}`, source: 'text', content: 'Bilbies dig burrows.' },
              }).catch(() => undefined)
              if (r?.status !== 201) return false
              acknowledged.push(r.body.data.id)
              return true
            },
            30_000,
          )
          assert.is(proc.child.exitCode, null, `alive after round ${round}: ${proc.output().slice(-2000)}`)
        }
      } finally {
        writing = false
        await writers
        await admin.end()
      }
      assert.ok(acknowledged.length > ROUNDS, `${acknowledged.length} writes acknowledged`)
      for (const id of acknowledged) ok(await call('GET', `/api/v1/knowledge/${id}`, { token: m.token }))
      // Every task ends, completed or failed with a reason, none left behind.
      await until(
        'every task ended',
        async () => {
          for (const id of tasks) {
            const t = ok(await call('GET', `/api/v1/knowledge/tasks/${id}`, { token: m.token }))
            if (t.status !== 'completed' && t.status !== 'failed') return false
          }
          return true
        },
        60_000,
      )
      assert.is(proc.child.exitCode, null)
      // Every connection's failure was handled where it happened: none reached the process's last line.
      assert.not.match(proc.output(), /Unhandled 'error' event|uncaught exception|unhandled rejection/)
    } finally {
      proc?.child.kill('SIGKILL')
      await proc?.exited
      await db.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
}

test.run()
