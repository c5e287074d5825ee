import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3'
import { BlobMissing, type BlobStore, BlobStoreUnavailable, checkHash, hashOf } from './port'

/** `s3://bucket/prefix` as its parts; the prefix ends with a slash when there is one. */
export const parseS3Url = (url: string) => {
  const u = new URL(url)
  if (u.protocol !== 's3:' || !u.hostname) throw new Error(`not an s3://bucket/prefix URL: ${url}`)
  const prefix = decodeURIComponent(u.pathname.replace(/^\/+/, ''))
  return { bucket: u.hostname, prefix: prefix && !prefix.endsWith('/') ? `${prefix}/` : prefix }
}

type SdkError = { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } }

/** A 404 that is about the object: NoSuchKey, or a HEAD's bare NotFound; never NoSuchBucket. */
const notFound = (error: unknown) => {
  const e = error as SdkError
  if (e.name === 'NoSuchBucket') return false
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404
}

/**
 * What a failed request says of the store: a server that cannot answer now (no answer at all,
 * 5xx, 429 and throttling, a bucket gone, access refused) is BlobStoreUnavailable, said with what
 * the server said; anything else (a request the server found wrong) is thrown as it came.
 */
const unavailable = (bucket: string, error: unknown): unknown => {
  const e = error as SdkError
  // Only what the SDK threw (a server's answer, or none): a name that is no hash, a missing blob, pass.
  if (!e || typeof e !== 'object' || !('$metadata' in e || '$fault' in e || typeof e.code === 'string')) {
    if (!['AbortError', 'TimeoutError'].includes(e?.name ?? '')) return error
  }
  const status = e.$metadata?.httpStatusCode
  if (e.name === 'NoSuchBucket') return new BlobStoreUnavailable(`the bucket "${bucket}" does not exist`)
  if (status === 403) return new BlobStoreUnavailable(`access to the bucket "${bucket}" is denied (${e.name})`)
  const throttled = /throttl|slowdown|toomanyrequests/i.test(e.name ?? '')
  if (status === undefined || status >= 500 || status === 429 || status === 408 || throttled) {
    const said = status ? `${status} ${e.name}` : (e.code ?? e.name ?? 'no answer')
    return new BlobStoreUnavailable(`${said}: ${e.message ?? ''}`.replace(/: $/, ''))
  }
  return error
}

/**
 * Uploaded files in S3-compatible object storage (AWS S3, MinIO, R2...), as objects
 * `<prefix><hash>`. Everything is read from the environment it is given (the service's
 * configuration): S3_ENDPOINT names another server, S3_FORCE_PATH_STYLE=true addresses it by path
 * (MinIO), AWS_REGION, and AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN);
 * without keys the SDK's usual chain (a role, a profile). What the store relies on: a PUT of an
 * existing key replaces it and moves its LastModified (so a file uploaded again is not an orphan);
 * reads and lists after a write see it (S3 is strongly consistent); a DELETE of a missing key
 * succeeds; LastModified has whole seconds. Its contract suite runs against s3rver.
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
    const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = env
    this.client = new S3Client({
      ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
      forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true',
      region: env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1',
      ...(accessKeyId && secretAccessKey
        ? { credentials: { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN } }
        : {}),
      // The SDK's default checksums on every request are refused by some S3-compatible servers;
      // the bytes are checked against their hash on every read instead.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  /**
   * The store, once its bucket is known to be there: a bucket that does not exist, or that these
   * credentials may not use, stops the start with what to fix. A server that does not answer does
   * not: `onUnreachable` is told, and uploads and tasks wait for it as for any outage.
   */
  static async open(url: string, env: NodeJS.ProcessEnv, onUnreachable: (reason: string) => void) {
    const store = new S3BlobStore(url, env)
    const where = env.S3_ENDPOINT ? ` at ${env.S3_ENDPOINT}` : ''
    try {
      await store.client.send(new HeadBucketCommand({ Bucket: store.bucket }))
    } catch (error) {
      const status = (error as SdkError).$metadata?.httpStatusCode
      const fix = status === 404 ? 'does not exist: create it, or correct BLOB_URL' : 'refuses these credentials'
      if (status === 404 || status === 403) {
        await store.close()
        throw new Error(`BLOB_URL names the bucket "${store.bucket}"${where}, which ${fix}`)
      }
      onUnreachable((unavailable(store.bucket, error) as Error).message)
    }
    return store
  }

  /** One request at a time through this, so that every failure is classified the same way. */
  private async send<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request()
    } catch (error) {
      throw unavailable(this.bucket, error)
    }
  }

  private key(hash: string) {
    return `${this.prefix}${checkHash(hash)}`
  }

  async put(bytes: Uint8Array): Promise<string> {
    const hash = hashOf(bytes)
    await this.send(() =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: this.key(hash),
          Body: bytes,
          ContentType: 'application/octet-stream',
        }),
      ),
    )
    return hash
  }

  async read(hash: string): Promise<Buffer> {
    const bytes = await this.send(async () => {
      try {
        const got = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.key(hash) }))
        return Buffer.from(await got.Body!.transformToByteArray())
      } catch (error) {
        if (notFound(error)) throw new BlobMissing(hash)
        throw error
      }
    })
    if (hashOf(bytes) !== hash) throw new Error(`the stored object ${this.key(hash)} does not hash to its name`)
    return bytes
  }

  async remove(hash: string) {
    await this.send(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(hash) })))
  }

  /** The bucket answers (one HEAD, given up after 3 s: /health waits for no outage). */
  async check() {
    await this.send(() =>
      this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: AbortSignal.timeout(3000) }),
    )
  }

  async writtenBefore(before: Date) {
    const hashes: string[] = []
    for (let token: string | undefined; ; ) {
      // Pages of at most 1,000 keys, each naming the next by its continuation token.
      const page = await this.send(() =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.prefix, ContinuationToken: token }),
        ),
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
      throw unavailable(this.bucket, error)
    }
    await this.remove(hash)
    return true
  }

  async removeTemporary() {}

  async close() {
    this.client.destroy()
  }
}
