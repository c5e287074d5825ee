import { createHash } from 'node:crypto'
import { DependencyUnavailable } from '../unavailable'

/**
 * Uploaded files, named by the SHA-256 of their bytes (never by the client's file name): the same
 * file uploaded twice is stored once. Three stores keep them: files under DATA_DIR (one machine),
 * a table of the PostgreSQL database (the default with DATABASE_URL: processes on several machines
 * share it with nothing else), or S3-compatible object storage (BLOB_URL=s3://bucket/prefix).
 */
export interface BlobStore {
  /** Where the blobs are kept: `local`, `postgres` or `s3`. */
  readonly kind: 'local' | 'postgres' | 's3'
  /** Stores the bytes (again: only their time of writing moves); answers their hash. */
  put(bytes: Uint8Array): Promise<string>
  /**
   * A blob's bytes. A blob that is not there throws BlobMissing; a store that cannot answer now (a
   * server down, 5xx, throttling, a bucket gone) throws BlobStoreUnavailable: the blob may be there.
   */
  read(hash: string): Promise<Buffer>
  /** Removes a blob; one that is not there is no error. */
  remove(hash: string): Promise<void>
  /**
   * Blobs last written before `before`, by hash, and the names of temporaries a crash left half
   * written (which only a sweep removes; local files only).
   */
  writtenBefore(before: Date): Promise<{ hashes: string[]; temporaries: string[] }>
  /** Removes a blob unless it was written again since `before` (an upload of the same bytes meanwhile). */
  removeIfWrittenBefore(hash: string, before: Date): Promise<boolean>
  removeTemporary(name: string): Promise<void>
  /** Resolves when the store answers now (for /health); throws (BlobStoreUnavailable) when it does not. */
  check(): Promise<void>
  close?(): Promise<void>
}

export class BlobMissing extends Error {
  constructor(readonly hash: string) {
    super(`no stored blob ${hash}`)
    this.name = 'BlobMissing'
  }
}

/** The store cannot answer now: what asked may try again later (a task waits; an upload answers 503). */
export class BlobStoreUnavailable extends DependencyUnavailable {
  constructor(reason: string) {
    super('the file store', reason)
    this.name = 'BlobStoreUnavailable'
    this.message = `the file store is unavailable: ${reason}`
  }
}

export const hashOf = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

/** A blob's name is its hash: anything else (a client's file name) is refused before it reaches a store. */
export const checkHash = (hash: string) => {
  if (!/^[0-9a-f]{64}$/.test(hash)) throw new Error(`not a blob hash: ${hash}`)
  return hash
}
