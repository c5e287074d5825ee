import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import { S3BlobStore } from '../../adapters/blobs/s3'
import { blobStoreContract } from './blobs'

// Object storage (AWS S3, MinIO, R2) where BLOB_URL names a bucket (s3://bucket/prefix) and the
// usual credentials are set; each run writes under a prefix of its own and removes what it wrote.
const url = process.env.TEST_BLOB_URL ?? process.env.BLOB_URL
if (!url?.startsWith('s3://')) {
  const skipped = suite('blob store on S3-compatible storage (BLOB_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.run()
} else
  blobStoreContract('S3-compatible object storage', async () => {
    const store = new S3BlobStore(`${url.replace(/\/$/, '')}/kb-contract-${randomUUID()}/`)
    return {
      store,
      close: async () => {
        for (const hash of (await store.writtenBefore(new Date(Date.now() + 60_000))).hashes) await store.remove(hash)
        await store.close()
      },
    }
  }).run()
