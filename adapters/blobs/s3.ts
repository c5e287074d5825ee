import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { BlobMissing, type BlobStore, checkHash, hashOf } from './port'

/** `s3://bucket/prefix` as its parts; the prefix ends with a slash when there is one. */
export const parseS3Url = (url: string) => {
  const u = new URL(url)
  if (u.protocol !== 's3:' || !u.hostname) throw new Error(`not an s3://bucket/prefix URL: ${url}`)
  const prefix = decodeURIComponent(u.pathname.replace(/^\/+/, ''))
  return { bucket: u.hostname, prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix }
}

const notFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } }
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404
}

/**
 * Uploaded files in S3-compatible object storage (AWS S3, MinIO, R2...), as objects
 * `<prefix><hash>`. Credentials and region come from the SDK's usual sources (AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_REGION, or a role); S3_ENDPOINT names another server, and
 * S3_FORCE_PATH_STYLE=true addresses it by path (MinIO). What the store relies on: a PUT of an
 * existing key replaces it and moves its LastModified (so a file uploaded again is not an orphan);
 * reads and lists after a write see it (S3 is strongly consistent); a DELETE of a missing key
 * succeeds; LastModified has whole seconds. Not run against a server here: its contract suite
 * runs where BLOB_URL is set.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const
  private readonly client: S3Client
  private readonly bucket: string
  private readonly prefix: string

  constructor(url: string, env: NodeJS.ProcessEnv = process.env) {
    const { bucket, prefix } = parseS3Url(url)
    this.bucket = bucket
    this.prefix = prefix
    this.client = new S3Client({
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      // The SDK's default checksums on every request are refused by some S3-compatible servers;
      // the bytes are checked against their hash on every read instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  private key(hash: string) {
    return `${this.prefix}${checkHash(hash)}`
  }

  async put(bytes: Uint8Array): Promise<string> {
    const hash = hashOf(bytes)
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.key(hash),
        Body: bytes,
        ContentType: 'application/octet-stream',
      }),
    )
    return hash
  }

  async read(hash: string): Promise<Buffer> {
    try {
      const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(hash) }))
      const bytes = Buffer.from(await got.Body!.transformToByteArray())
      if (hashOf(bytes) !== hash) throw new Error(`the stored object ${this.key(hash)} does not hash to its name`)
      return bytes
    } catch (error) {
      if (notFound(error)) throw new BlobMissing(hash)
      throw error
    }
  }

  async remove(hash: string) {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(hash) }))
  }

  async writtenBefore(before: Date) {
    const hashes: string[] = []
    for (let token: string | undefined; ; ) {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ContinuationToken: token }),
      )
      for (const o of page.Contents ?? []) {
        const name = o.Key?.slice(this.prefix.length) ?? ''
        if (/^[0-9a-f]{64}$/.test(name) && o.LastModified && o.LastModified < before) hashes.push(name)
      }
      if (!page.IsTruncated) break
      token = page.NextContinuationToken
    }
    return { hashes, temporaries: [] }
  }

  async removeIfWrittenBefore(hash: string, before: Date) {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(hash) }))
      if (!head.LastModified || head.LastModified >= before) return false
    } catch (error) {
      if (notFound(error)) return false
      throw error
    }
    await this.remove(hash)
    return true
  }

  async removeTemporary() {}

  async close() {
    this.client.destroy()
  }
}
