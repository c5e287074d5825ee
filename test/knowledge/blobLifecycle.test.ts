// Uploaded files follow the content rule on every store that runs here: stored before the event
// that names them, shared by hash, removed once no entry holds them (deletion, retention, an
// upload whose entry never came), never while an entry and its task still need them.
import pino from 'pino'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BlobMissing, type BlobStore, hashOf } from '../../adapters/blobs'
import { serverUrl, testPostgres } from '../../testkit/db'
import { ORPHAN_AGE_MS, removeOrphanFiles, sweepRetention } from '../../workers/knowledge/retention'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const stored = async (blobs: BlobStore, bytes: Buffer) => {
  try {
    return (await blobs.read(hashOf(bytes))).equals(bytes)
  } catch (error) {
    if (error instanceof BlobMissing) return false
    throw error
  }
}

const lifecycle = (where: string, kind: BlobStore['kind'], start: () => Promise<TestService>) => {
  const test = suite<{ svc: TestService; m: Member }>(`uploaded files through their life (${where})`)
  test.before(async (ctx) => {
    ctx.svc = await start()
    ctx.m = await seedMember(ctx.svc.call, 'owner')
  })
  test.after(async ({ svc }) => svc.stop())

  const send = (svc: TestService, m: Member, bytes: Buffer, name: string, fields: Record<string, string> = {}) =>
    upload(svc.url, m.token, { source: 'file', title: name, ...fields }, { bytes, name, type: 'text/plain' })

  test(`the service keeps uploads in the ${kind} store`, ({ svc }) => {
    assert.is(svc.deps.blobs.kind, kind)
  })

  test('one file for two entries of the same bytes; gone once the last of them is deleted', async ({ svc, m }) => {
    const bytes = Buffer.from(`Wombat droppings are cubes (${where}, ${Math.random()}).`)
    const a = ok(await send(svc, m, bytes, 'a.txt'), 201)
    const b = ok(await send(svc, m, bytes, 'b.txt'), 201)
    assert.is((await waitForTask(svc.call, m.token, a.taskId)).status, 'completed')
    assert.is((await waitForTask(svc.call, m.token, b.taskId)).status, 'completed')
    const blobOf = async (id: string) =>
      ok(await svc.call('GET', `/api/v1/knowledge/${id}`, { token: m.token })).storageInfo.sha256
    assert.equal([await blobOf(a.id), await blobOf(b.id)], [hashOf(bytes), hashOf(bytes)])
    assert.ok(await stored(svc.deps.blobs, bytes))
    ok(await svc.call('DELETE', `/api/v1/knowledge/${a.id}`, { token: m.token }))
    assert.ok(await stored(svc.deps.blobs, bytes), 'the other entry holds it')
    ok(await svc.call('DELETE', `/api/v1/knowledge/${b.id}`, { token: m.token }))
    assert.not.ok(await stored(svc.deps.blobs, bytes))
  })

  test('retention removes an expired entry and its file', async ({ svc }) => {
    const m = await seedMember(svc.call, 'owner')
    ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: m.token, body: { retentionDays: 30 } }))
    const bytes = Buffer.from(`Quokkas smile (${where}, ${Math.random()}).`)
    const e = ok(await send(svc, m, bytes, 'q.txt'), 201)
    assert.is((await waitForTask(svc.call, m.token, e.taskId)).status, 'completed')
    const files = { blobs: svc.deps.blobs, db: svc.deps.db.pool }
    const later = new Date(Date.now() + 31 * 86_400_000)
    assert.ok((await sweepRetention(svc.deps.db.pool, svc.deps.store, pino({ level: 'silent' }), later, files)) >= 1)
    await svc.deps.runner.waitFor(await svc.deps.store.headPosition(), 5000)
    expectError(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token }), 404, 'NOT_FOUND')
    assert.not.ok(await stored(svc.deps.blobs, bytes))
  })

  test('the orphan sweep removes a file no entry came for, never one an entry and its task need', async ({
    svc,
    m,
  }) => {
    const files = { blobs: svc.deps.blobs, db: svc.deps.db.pool }
    const refused = Buffer.from(`Refused, so never stored (${where}, ${Math.random()}).`)
    expectError(
      await send(svc, m, refused, 'r.txt', { folderId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'NOT_FOUND',
    )
    assert.not.ok(await stored(svc.deps.blobs, refused), 'a file is stored only once its entry is admitted')
    // What a crash between storing an upload and appending its entry leaves.
    const orphan = Buffer.from(`Stored, then the process stopped (${where}, ${Math.random()}).`)
    await svc.deps.blobs.put(orphan)
    const needed = Buffer.from(`Its task still to run (${where}, ${Math.random()}).`)
    const pending = ok(await send(svc, m, needed, 'n.txt'), 201)
    const hourLater = new Date(Date.now() + ORPHAN_AGE_MS + 60_000)
    assert.is(await removeOrphanFiles(files), 0, 'a fresh file may be an upload on its way')
    await removeOrphanFiles(files, hourLater)
    assert.not.ok(await stored(svc.deps.blobs, orphan))
    assert.ok(await stored(svc.deps.blobs, needed), 'its entry holds it')
    assert.is((await waitForTask(svc.call, m.token, pending.taskId)).status, 'completed')
  })

  test.run()
}

lifecycle('PGlite, files under DATA_DIR', 'local', () => startTestService())
if (serverUrl)
  lifecycle('Postgres server, its table', 'postgres', async () => startTestService({}, await testPostgres()))
else {
  const skipped = suite('uploaded files through their life on the Postgres server')
  skipped.skip('the same on the server (TEST_DATABASE_URL unset)', () => undefined)
  skipped.run()
}
