import http from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Database, inTransaction } from '../../adapters/db'
import { testPglite } from '../helpers/db'

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
    assert.ok(answeredAt < endedAt, `answered ${(answeredAt - started).toFixed(0)} ms in, the transaction ended at ${(endedAt - started).toFixed(0)} ms`)
  } finally {
    server.close()
  }
})

test.run()
