import type { Queryable } from '../db'
import { BlobMissing, type BlobStore, checkHash, hashOf } from './port'

export const blobTableSchema = `
CREATE TABLE IF NOT EXISTS kb_blobs (
  hash text PRIMARY KEY,
  bytes bytea NOT NULL,
  size integer NOT NULL,
  written_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS kb_blobs_written ON kb_blobs (written_at);
`

/**
 * Uploaded files in a table of the database, one row per distinct file: processes on several
 * machines share them through the database alone. Not a read model: the bytes an event names by
 * hash, stored before the event is appended. The same bytes again only move their time of writing
 * (which keeps a file uploaded again from the orphan sweep).
 */
export class PostgresBlobStore implements BlobStore {
  readonly kind = 'postgres' as const
  private constructor(private readonly db: Queryable) {}

  static async open(db: Queryable) {
    await db.query(blobTableSchema)
    return new PostgresBlobStore(db)
  }

  async put(bytes: Uint8Array): Promise<string> {
    const hash = hashOf(bytes)
    await this.db.query(
      `INSERT INTO kb_blobs (hash, bytes, size) VALUES ($1, $2, $3)
       ON CONFLICT (hash) DO UPDATE SET written_at = clock_timestamp()`,
      [hash, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength],
    )
    return hash
  }

  async read(hash: string): Promise<Buffer> {
    const { rows } = await this.db.query<{ bytes: Buffer }>('SELECT bytes FROM kb_blobs WHERE hash = $1', [
      checkHash(hash),
    ])
    if (!rows[0]) throw new BlobMissing(hash)
    return rows[0].bytes
  }

  async remove(hash: string) {
    await this.db.query('DELETE FROM kb_blobs WHERE hash = $1', [checkHash(hash)])
  }

  async writtenBefore(before: Date) {
    const { rows } = await this.db.query<{ hash: string }>('SELECT hash FROM kb_blobs WHERE written_at < $1', [before])
    return { hashes: rows.map((r) => r.hash), temporaries: [] }
  }

  async removeIfWrittenBefore(hash: string, before: Date) {
    const { rowCount } = await this.db.query('DELETE FROM kb_blobs WHERE hash = $1 AND written_at < $2', [
      checkHash(hash),
      before,
    ])
    return (rowCount ?? 0) > 0
  }

  async removeTemporary() {}

  async check() {
    await this.db.query('SELECT 1 FROM kb_blobs LIMIT 1')
  }
}
