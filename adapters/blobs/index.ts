import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Database } from '../db'
import { LocalBlobStore } from './local'
import type { BlobStore } from './port'
import { PostgresBlobStore } from './postgres'
import { S3BlobStore } from './s3'

export { BlobMissing, type BlobStore, hashOf } from './port'

/**
 * The store uploaded files go to: BLOB_URL=s3://bucket/prefix (object storage), or
 * BLOB_URL=file:///a/directory; else the database's own table when it is a PostgreSQL server
 * (DATABASE_URL), else files under DATA_DIR/blobs.
 */
export const openBlobStore = async (
  config: { blobUrl?: string; dataDir: string },
  db: Database,
): Promise<BlobStore> => {
  if (config.blobUrl?.startsWith('s3://')) return new S3BlobStore(config.blobUrl)
  if (config.blobUrl?.startsWith('file://')) return new LocalBlobStore(fileURLToPath(config.blobUrl))
  if (db.kind === 'postgres') return PostgresBlobStore.open(db.pool)
  return new LocalBlobStore(path.join(config.dataDir, 'blobs'))
}
