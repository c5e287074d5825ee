import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openDatabase } from '../../adapters/db'
import { type TestService, ok, seedMember, startTestService } from '../helpers/service'

// A restart whose read models are behind the log (events appended just before a kill, applied after
// the start): the service is not ready until they hold what the log held at start, and once ready a
// list's pages hold exactly its total.
const test = suite('API: readiness after a restart (the read models behind the log)')

const ENTRIES = 120

test('not ready while the entries read model replays; once ready, the list adds up to its total', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-restart-'))
  let svc: TestService | undefined
  try {
    svc = await startTestService({}, undefined, { dataDir })
    const m = await seedMember(svc.call, 'editor')
    let next = 0
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (next < ENTRIES) {
          const i = next++
          const body = { title: `entry ${i}`, source: 'text', content: `Entry number ${i}.` }
          ok(await svc!.call('POST', '/api/v1/knowledge', { token: m.token, body }), 201)
        }
      }),
    )
    await svc.stop()
    svc = undefined
    // As if the process had died with the entries appended and not yet applied: the read model loses
    // them and its checkpoint goes back to the start of the log.
    const db = await openDatabase({ dataDir })
    await db.pool.query('DELETE FROM kb_entries')
    await db.pool.query("UPDATE projection_checkpoints SET position = 0 WHERE name = 'knowledge'")
    await db.close()

    svc = await startTestService({}, undefined, { dataDir })
    for (;;) {
      const health = await svc.call('GET', '/health')
      if (health.status === 200) break
      assert.is(health.status, 503)
      assert.is(health.body.error.code, 'SERVICE_UNAVAILABLE')
      await new Promise((r) => setTimeout(r, 20))
    }
    const titles: string[] = []
    let total = -1
    for (let page = 1; ; page++) {
      const list = ok(await svc.call('GET', `/api/v1/knowledge?limit=50&page=${page}`, { token: m.token }))
      total = list.total
      titles.push(...list.items.map((e: { title: string }) => e.title))
      if (list.items.length < 50) break
    }
    assert.is(total, ENTRIES)
    assert.is(new Set(titles).size, ENTRIES, 'every entry once')
  } finally {
    await svc?.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test.run()
