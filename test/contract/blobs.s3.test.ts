import { randomBytes, randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BlobMissing, BlobStoreUnavailable, hashOf } from '../../adapters/blobs'
import { S3BlobStore } from '../../adapters/blobs/s3'
import { type FaultProxy, type S3Server, s3Env, startFaultProxy, startS3rver } from '../../testkit/s3'
import { blobStoreContract } from './blobs'

// The S3 store against s3rver (an S3-protocol server from npm, started here on a free port), and,
// where TEST_BLOB_URL names a bucket of a real server with its credentials set, against that too.
const BUCKET = 'kb-contract'
let server: S3Server

const boot = suite('s3rver')
boot.before(async () => {
  server = await startS3rver([BUCKET])
})
boot('s3rver listens', () => assert.ok(server.port > 0))
boot.run()

/** Removes what a store wrote under its prefix, then closes it. */
const emptied = (store: S3BlobStore) => async () => {
  for (const hash of (await store.writtenBefore(new Date(Date.now() + 60_000))).hashes) await store.remove(hash)
  await store.close()
}

blobStoreContract('S3 protocol (s3rver)', async () => {
  const store = await S3BlobStore.open(`s3://${BUCKET}/kb-${randomUUID()}/`, server.env, assert.unreachable)
  return { store, close: emptied(store) }
}).run()

const faults = suite<{ proxy: FaultProxy }>('S3 store: a bucket that does not exist, storage that fails')
faults.before(async (ctx) => {
  ctx.proxy = await startFaultProxy(server)
})
faults.after(async ({ proxy }) => {
  await proxy.close()
  await server.stop()
})

faults('a bucket that does not exist: a start-up error naming it, never "blob missing"', async () => {
  try {
    await S3BlobStore.open('s3://no-such-bucket/kb/', server.env, assert.unreachable)
    assert.unreachable('opened a store on a bucket that does not exist')
  } catch (error) {
    assert.match((error as Error).message, /bucket "no-such-bucket" at http:\/\/127\.0\.0\.1:\d+, which does not exist/)
  }
  // A store already open whose bucket goes: its reads say the bucket is gone, not that the blob is.
  const store = new S3BlobStore('s3://no-such-bucket/kb/', server.env)
  const error = await store.read(hashOf(randomBytes(8))).catch((e: unknown) => e)
  assert.instance(error, BlobStoreUnavailable)
  assert.not.instance(error, BlobMissing)
  assert.match((error as Error).message, /the bucket "no-such-bucket" does not exist/)
  await store.close()
})

faults('credentials come from the environment the store is given, not from process.env', async () => {
  const store = new S3BlobStore(`s3://${BUCKET}/kb-${randomUUID()}/`, server.env)
  const bytes = randomBytes(100)
  assert.ok((await store.read(await store.put(bytes))).equals(bytes))
  await emptied(store)()
  const refused = { ...server.env, AWS_ACCESS_KEY_ID: 'SOMEONE-ELSE' }
  const error = await S3BlobStore.open(`s3://${BUCKET}/kb/`, refused, assert.unreachable).catch((e: unknown) => e)
  assert.match((error as Error).message, /bucket "kb-contract" .*refuses these credentials/)
})

faults('a transient 503 on GetObject: retried; past the retries, "unavailable", never "missing"', async ({ proxy }) => {
  const store = new S3BlobStore(`s3://${BUCKET}/kb-${randomUUID()}/`, s3Env(proxy.endpoint))
  const bytes = randomBytes(5000)
  const hash = await store.put(bytes)
  proxy.failGetObjects(2)
  assert.ok((await store.read(hash)).equals(bytes), 'two 503s are within the SDK retries')
  assert.is(proxy.counts.refused, 2)
  proxy.failGetObjects(10)
  const error = await store.read(hash).catch((e: unknown) => e)
  assert.instance(error, BlobStoreUnavailable)
  assert.match((error as Error).message, /503 ServiceUnavailable/)
  proxy.failGetObjects(0)
  assert.ok((await store.read(hash)).equals(bytes), 'the object was there all along')
  await emptied(store)()
})

faults('storage down: put, list and check say unavailable; a missing blob is still BlobMissing', async ({ proxy }) => {
  const store = new S3BlobStore(`s3://${BUCKET}/kb-${randomUUID()}/`, s3Env(proxy.endpoint))
  await store.check()
  proxy.down = true
  for (const attempt of [
    () => store.put(randomBytes(10)),
    () => store.writtenBefore(new Date()),
    () => store.check(),
    () => store.read(hashOf(randomBytes(8))),
  ])
    assert.instance(await attempt().catch((e: unknown) => e), BlobStoreUnavailable)
  proxy.down = false
  assert.instance(await store.read(hashOf(randomBytes(8))).catch((e: unknown) => e), BlobMissing)
  const closed = new S3BlobStore(`s3://${BUCKET}/kb/`, s3Env('http://127.0.0.1:1'))
  assert.instance(await closed.check().catch((e: unknown) => e), BlobStoreUnavailable, 'nothing listening')
  await store.close()
  await closed.close()
})

faults.run()

const url = process.env.TEST_BLOB_URL
if (!url?.startsWith('s3://')) {
  const skipped = suite('blob store on a real S3-compatible server (TEST_BLOB_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.run()
} else
  blobStoreContract('S3-compatible object storage (TEST_BLOB_URL)', async () => {
    const store = await S3BlobStore.open(`${url.replace(/\/$/, '')}/kb-contract-${randomUUID()}/`, process.env, () =>
      assert.unreachable('the server does not answer'),
    )
    return { store, close: emptied(store) }
  }).run()
