import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '../db'
import type { Logger } from '../logger'
import { LocalBlobStore } from './local'
import type { BlobStore } from './port'
import { PostgresBlobStore } from './postgres'
import { S3BlobStore } from './s3'

export { BlobMissing, type BlobStore, BlobStoreUnavailable, hashOf } from './port'

/**
 * The store uploaded files go to: BLOB_URL=s3://bucket/prefix (object storage), or
 * BLOB_URL=file:///a/directory; else the database's own table when it is a PostgreSQL server
 * (DATABASE_URL), else files under DATA_DIR/blobs. An S3 bucket that does not exist (or refuses
 * the credentials) stops the start; one that does not answer is logged, and waited for.
 */
export const openBlobStore = async (
  config: { blobUrl?: string; dataDir: string; s3Env?: Record<string, string | undefined> },
  db: Database,
  log?: Logger,
): Promise<BlobStore> => {
  if (config.blobUrl?.startsWith('s3://'))
    return S3BlobStore.open(config.blobUrl, config.s3Env ?? {}, (reason) =>
      log?.warn({ reason }, 'the file store does not answer at start; uploads answer 503 until it does'),
    )
  if (config.blobUrl?.startsWith('file://')) return new LocalBlobStore(fileURLToPath(config.blobUrl))
  if (db.kind === 'postgres') return PostgresBlobStore.open(db.pool)
  return new LocalBlobStore(path.join(config.dataDir, 'blobs'))
}
