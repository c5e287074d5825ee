// The file store (S3 protocol, s3rver behind a proxy that answers 503 when told) failing at the
// edges: an upload while it is down answers 503 with Retry-After; a task whose file cannot be read
// for a while waits and completes; one it never can fails saying the store was unavailable.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type FaultProxy, type S3Server, s3Env, startFaultProxy, startS3rver } from '../../testkit/s3'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const BUCKET = 'kb-uploads'
const test = suite<{ s3: S3Server; proxy: FaultProxy; svc: TestService; m: Member }>('the file store down or failing')
test.before(async (ctx) => {
  ctx.s3 = await startS3rver([BUCKET])
  ctx.proxy = await startFaultProxy(ctx.s3)
  ctx.svc = await startTestService({
    BLOB_URL: `s3://${BUCKET}/service`,
    ...s3Env(ctx.proxy.endpoint),
    // Each delivery waits 3 s for the store before it fails (30 s unless set).
    BLOB_RETRY_MS: '3000',
  })
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ s3, proxy, svc }) => {
  await svc.stop()
  await proxy.close()
  await s3.stop()
})

const send = (svc: TestService, m: Member, text: string, name: string) =>
  upload(svc.url, m.token, { source: 'file', title: name }, { bytes: Buffer.from(text), name, type: 'text/plain' })

test('/health lists the file store: up, then down with its reason while the service stays ready', async ({
  svc,
  proxy,
}) => {
  const up = ok(await svc.call('GET', '/health'))
  assert.equal(up.dependencies.blobStore, { status: 'up', kind: 's3' })
  proxy.down = true
  try {
    const down = ok(await svc.call('GET', '/health'))
    assert.is(down.dependencies.blobStore.status, 'down')
    assert.match(down.dependencies.blobStore.reason, /file store is unavailable: 503/)
  } finally {
    proxy.down = false
  }
})

test('an upload while the store is down: 503 SERVICE_UNAVAILABLE with Retry-After, and no entry', async ({
  svc,
  m,
  proxy,
}) => {
  const count = async () => ok(await svc.call('GET', '/api/v1/knowledge', { token: m.token })).pagination.total
  const before = await count()
  proxy.down = true
  let refused: Awaited<ReturnType<typeof send>>
  try {
    refused = await send(svc, m, 'Numbats eat termites.', 'numbats.txt')
  } finally {
    proxy.down = false
  }
  expectError(refused, 503, 'SERVICE_UNAVAILABLE')
  assert.match(refused.body.error.message, /the file store is unavailable; retry in \d+ s/)
  assert.not.match(refused.body.error.message, /127\.0\.0\.1/, 'says nothing of where the store is')
  assert.ok(Number(refused.headers.get('retry-after')) >= 1)
  assert.is(await count(), before)
  const accepted = ok(await send(svc, m, 'Numbats eat termites.', 'numbats.txt'), 201)
  assert.is((await waitForTask(svc.call, m.token, accepted.taskId)).status, 'completed')
})

test('GetObject answered 503 for a while: the task waits for the store and completes', async ({ svc, m, proxy }) => {
  // Eight 503s: more than the SDK's three tries of one read, twice over.
  proxy.failGetObjects(8)
  const refusedBefore = proxy.counts.refused
  const e = ok(await send(svc, m, 'Bilbies dig spiral burrows.', 'bilbies.txt'), 201)
  const task = await waitForTask(svc.call, m.token, e.taskId)
  assert.is(task.status, 'completed', JSON.stringify(task))
  assert.is(proxy.counts.refused - refusedBefore, 8)
  const entry = ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token }))
  assert.match(entry.content, /spiral burrows/)
})

test('a store that stays unavailable: the task fails saying so, never that the file is gone', async ({
  svc,
  m,
  proxy,
}) => {
  proxy.failGetObjects(1_000_000)
  try {
    const e = ok(await send(svc, m, 'Potoroos eat truffles.', 'potoroos.txt'), 201)
    const task = await waitForTask(svc.call, m.token, e.taskId, 60_000)
    assert.is(task.status, 'failed')
    const reason = JSON.stringify(task)
    assert.match(reason, /the file store is unavailable: 503 ServiceUnavailable/)
    assert.not.match(reason, /no longer stored/)
  } finally {
    proxy.failGetObjects(0)
  }
})

test('a stop while a task waits for the store ends the wait: it is not held for BLOB_RETRY_MS', async ({
  s3,
  proxy,
}) => {
  const svc = await startTestService({
    BLOB_URL: `s3://${BUCKET}/service`,
    ...s3Env(proxy.endpoint),
    BLOB_RETRY_MS: '60000',
  })
  const m = await seedMember(svc.call, 'owner')
  proxy.failGetObjects(1_000_000)
  try {
    const refused = proxy.counts.refused
    ok(await send(svc, m, 'Quolls are spotted.', 'quolls.txt'), 201)
    while (proxy.counts.refused - refused < 6) await new Promise((r) => setTimeout(r, 50))
    const began = Date.now()
    await svc.stop()
    assert.ok(Date.now() - began < 5000, `stopped in ${Date.now() - began} ms`)
  } finally {
    proxy.failGetObjects(0)
  }
  assert.ok(s3.port > 0)
})

test('a bucket that does not exist stops the start, naming it', async ({ s3 }) => {
  const error = await startTestService({ BLOB_URL: 's3://no-such-bucket/kb', ...s3Env(s3.endpoint) }).catch(
    (e: unknown) => e,
  )
  assert.match((error as Error).message, /BLOB_URL names the bucket "no-such-bucket" .*which does not exist/)
})

test.run()
