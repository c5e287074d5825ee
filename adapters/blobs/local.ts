import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { BlobMissing, type BlobStore, checkHash, hashOf } from './port'

/** Uploaded files under a directory (DATA_DIR/blobs), in shards by the first two hex digits of their hash. */
export class LocalBlobStore implements BlobStore {
  readonly kind = 'local' as const
  constructor(private dir: string) {}

  private pathOf(hash: string) {
    return path.join(this.dir, checkHash(hash).slice(0, 2), hash)
  }

  async put(bytes: Uint8Array): Promise<string> {
    const hash = hashOf(bytes)
    const file = this.pathOf(hash)
    await fs.mkdir(path.dirname(file), { recursive: true })
    // Written aside then renamed: a crash never leaves a half file under the hash's name.
    const temporary = `${file}.${randomUUID()}.part`
    await fs.writeFile(temporary, bytes, { mode: 0o600 })
    await fs.rename(temporary, file)
    return hash
  }

  read(hash: string): Promise<Buffer> {
    return fs.readFile(this.pathOf(hash)).catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT' ? new BlobMissing(hash) : error
    })
  }

  async remove(hash: string) {
    await fs.rm(this.pathOf(hash), { force: true })
  }

  /**
   * Files last written before `before`: whole blobs by hash, and the names of temporaries a crash
   * left half written (which only a sweep removes).
   */
  async writtenBefore(before: Date): Promise<{ hashes: string[]; temporaries: string[] }> {
    const hashes: string[] = []
    const temporaries: string[] = []
    const shards = await fs.readdir(this.dir).catch(() => [] as string[])
    for (const shard of shards.filter((s) => /^[0-9a-f]{2}$/.test(s))) {
      for (const name of await fs.readdir(path.join(this.dir, shard))) {
        const file = path.join(this.dir, shard, name)
        const stat = await fs.stat(file).catch(() => undefined)
        if (!stat || stat.mtime >= before) continue
        if (/^[0-9a-f]{64}$/.test(name)) hashes.push(name)
        else if (name.endsWith('.part')) temporaries.push(file)
      }
    }
    return { hashes, temporaries }
  }

  /**
   * Removes a blob unless it was written again since `before` (an upload of the same bytes meanwhile); says whether it
   * did.
   */
  async removeIfWrittenBefore(hash: string, before: Date): Promise<boolean> {
    const stat = await fs.stat(this.pathOf(hash)).catch(() => undefined)
    if (!stat || stat.mtime >= before) return false
    await this.remove(hash)
    return true
  }

  /** The directory can be written (made when missing). */
  async check() {
    await fs.mkdir(this.dir, { recursive: true })
    await fs.access(this.dir, fs.constants.W_OK)
  }

  async removeTemporary(file: string) {
    if (file.startsWith(this.dir + path.sep) && file.endsWith('.part')) await fs.rm(file, { force: true })
  }
}
