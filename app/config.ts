import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { withoutCredentials } from '../adapters/connectionStrings'

// Each variable is decoded from its string form; a bad value stops the start with one line.
const withDefault = <A>(codec: t.Type<A, unknown, unknown>, fallback: A) =>
  new t.Type<A, unknown, unknown>(
    codec.name,
    codec.is,
    (u, c) => (u === undefined || u === '' ? t.success(fallback) : codec.validate(u, c)),
    codec.encode,
  )

const intInRange = (min: number, max: number) =>
  new t.Type<number, unknown, unknown>(
    `an integer between ${min} and ${max}`,
    (u): u is number => typeof u === 'number',
    (u, c) => {
      const n = typeof u === 'string' && /^-?\d+$/.test(u.trim()) ? Number(u) : NaN
      return Number.isInteger(n) && n >= min && n <= max ? t.success(n) : t.failure(u, c)
    },
    String,
  )

const booleanString = new t.Type<boolean, unknown, unknown>(
  'true or false',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) =>
    u === 'true' || u === '1' ? t.success(true) : u === 'false' || u === '0' ? t.success(false) : t.failure(u, c),
  String,
)

const postgresUrl = new t.Type<string, unknown, unknown>(
  'a postgres:// or postgresql:// URL',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && /^postgres(ql)?:\/\/\S+$/.test(u) ? t.success(u) : t.failure(u, c)),
  String,
)

const blobUrl = new t.Type<string, unknown, unknown>(
  'an s3://bucket/prefix or file:///absolute/directory URL',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && (/^s3:\/\/[a-z0-9][a-z0-9.-]{1,62}(\/\S*)?$/.test(u) || /^file:\/\/\/\S+$/.test(u))
      ? t.success(u)
      : t.failure(u, c),
  String,
)

const amqpUrl = new t.Type<string, unknown, unknown>(
  'an amqp:// or amqps:// URL',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && /^amqps?:\/\/\S+$/.test(u) ? t.success(u) : t.failure(u, c)),
  String,
)

const eventStoreUrl = new t.Type<string, unknown, unknown>(
  'an EventStoreDB connection string (kurrentdb://, kurrent://, kdb:// or esdb://, each optionally +discover)',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^(esdb|kurrentdb|kurrent|kdb)(\+discover)?:\/\/\S+$/.test(u)
      ? t.success(u)
      : t.failure(u, c),
  String,
)

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

/** A comma list of delays such as `5s,5m,30m,2h`, in milliseconds; each at most a day. */
const delays = new t.Type<number[], string, unknown>(
  'a comma list of delays with units ms, s, m or h, each at most 24h (such as 5s,5m,30m,2h,5h,10h,10h)',
  (u): u is number[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c)
    const parts = u.split(',').map((p) => /^\s*(\d{1,9})(ms|s|m|h)\s*$/.exec(p))
    if (parts.length > 20 || parts.some((m) => !m)) return t.failure(u, c)
    const ms = parts.map((m) => Number(m![1]) * UNITS[m![2]])
    return ms.every((d) => d > 0 && d <= 86_400_000) ? t.success(ms) : t.failure(u, c)
  },
  (a) => a.map((d) => `${d}ms`).join(','),
)

const httpUrl = new t.Type<string, unknown, unknown>(
  'an http:// or https:// URL (scheme and host, optionally a path prefix)',
  (u): u is string => typeof u === 'string',
  (u, c) =>
    typeof u === 'string' && /^https?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/.test(u)
      ? t.success(u.replace(/\/+$/, ''))
      : t.failure(u, c),
  String,
)

const secret = new t.Type<string, unknown, unknown>(
  'at least 16 characters',
  (u): u is string => typeof u === 'string',
  (u, c) => (typeof u === 'string' && u.length >= 16 ? t.success(u) : t.failure(u, c)),
  String,
)

/** What a process runs: the HTTP API, the projectors, the task workers, the cluster-wide schedules. */
export const ROLES = ['api', 'projector', 'worker', 'scheduler'] as const
export type Role = (typeof ROLES)[number]

const roleList = new t.Type<Role[], unknown, unknown>(
  `a comma list of ${ROLES.join(', ')}`,
  (u): u is Role[] => Array.isArray(u),
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c)
    const names = u
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean)
    return names.length > 0 && names.every((r) => (ROLES as readonly string[]).includes(r))
      ? t.success([...new Set(names)] as Role[])
      : t.failure(u, c)
  },
  (a) => a.join(','),
)

const optional = <A>(codec: t.Type<A, unknown, unknown>) => withDefault(t.union([codec, t.undefined]), undefined)

export const ConfigCodec = t.type({
  PORT: withDefault(intInRange(0, 65535), 3000),
  KB_ROLE: withDefault(roleList, [...ROLES]),
  HOST: withDefault(t.string, '0.0.0.0'),
  DATA_DIR: withDefault(t.string, './data'),
  DATABASE_URL: optional(postgresUrl),
  EVENTSTORE_URL: optional(eventStoreUrl),
  ELASTICSEARCH_URL: optional(httpUrl),
  ELASTICSEARCH_REPLICAS: withDefault(intInRange(0, 16), 0),
  RERANK_URL: optional(t.string),
  RERANK_TIMEOUT_MS: withDefault(intInRange(100, 60_000), 2000),
  SEARCH_EXACT_ROWS: withDefault(intInRange(0, 1_000_000), 2000),
  BLOB_URL: optional(blobUrl),
  BLOB_RETRY_MS: withDefault(intInRange(0, 600_000), 30_000),
  KB_ADMIN_TOKEN: optional(secret),
  LOG_LEVEL: withDefault(
    t.keyof({ fatal: null, error: null, warn: null, info: null, debug: null, trace: null, silent: null }),
    'info',
  ),
  READ_YOUR_WRITES_TIMEOUT_MS: withDefault(intInRange(0, 60000), 5000),
  SHUTDOWN_TIMEOUT_MS: withDefault(intInRange(0, 600000), 10000),
  KB_ALLOW_PRIVATE_URLS: withDefault(booleanString, false),
  KB_CHECK_ANSWERS: withDefault(booleanString, false),
  KB_TEST_GARBLED_INDEX: withDefault(booleanString, false),
  EMBEDDER: withDefault(t.keyof({ local: null, hashing: null, openai: null }), 'local'),
  OPENAI_API_KEY: optional(t.string),
  OPENAI_BASE_URL: optional(t.string),
  EMBEDDING_MODEL: withDefault(t.string, 'text-embedding-3-small'),
  EMBEDDING_DIMENSIONS: withDefault(intInRange(1, 16000), 1536),
  EMBED_WORKERS: optional(intInRange(1, 256)),
  RETENTION_SWEEP_MS: withDefault(intInRange(1000, 86_400_000), 3_600_000),
  AMQP_URL: optional(amqpUrl),
  AMQP_QUEUE: withDefault(t.string, 'kb.tasks'),
  FETCH_TIMEOUT_MS: withDefault(intInRange(100, 600_000), 30_000),
  PARSE_TIMEOUT_MS: withDefault(intInRange(100, 600_000), 60_000),
  PARSER_MEMORY_MB: withDefault(intInRange(32, 8192), 512),
  PARSER_WORKERS: withDefault(intInRange(1, 32), 2),
  SYNC_SCHEDULE_MS: withDefault(intInRange(100, 86_400_000), 60_000),
  PUBLIC_URL: optional(httpUrl),
  PACK_REQUESTS_PER_MINUTE: withDefault(intInRange(1, 1_000_000), 60),
  PACK_CITATIONS_FLUSH_MS: withDefault(intInRange(100, 3_600_000), 10_000),
  EVENTS_HEARTBEAT_MS: withDefault(intInRange(100, 600_000), 15_000),
  WEBHOOK_RETRY_SCHEDULE: withDefault(
    delays,
    [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  ),
})

export interface Config {
  /** What this process runs (KB_ROLE); all of it by default. */
  roles: Role[]
  port: number
  host: string
  dataDir: string
  databaseUrl?: string
  /** EventStoreDB for the events; the database's event tables when unset. */
  eventStoreUrl?: string
  /** Elasticsearch for BM25 candidates; the database's own text index when unset. */
  elasticsearchUrl?: string
  /** Replicas of each Elasticsearch index: 0 on a single node. */
  elasticsearchReplicas: number
  /** A reranking model's server (the common /rerank wire format); workspaces turn reranking on. */
  rerankUrl?: string
  rerankTimeoutMs: number
  /**
   * Where uploaded files go: s3://bucket/prefix, or file:///a/directory; unset, the database's
   * table on a PostgreSQL server, else DATA_DIR/blobs.
   */
  blobUrl?: string
  /** The S3 store's settings, from this configuration's environment: endpoint, path style, region, keys. */
  s3Env: Record<string, string | undefined>
  /** How long a task waits for an unavailable file store (with backoff) before its delivery fails. */
  blobRetryMs: number
  adminToken?: string
  logLevel: string
  /** Rows a filtered search's scope may hold for its legs to read them all rather than their index. */
  searchExactRows: number
  readYourWritesTimeoutMs: number
  shutdownTimeoutMs: number
  allowPrivateUrls: boolean
  checkAnswers: boolean
  /** Tests only: the search index spells every word backwards (a broken rebuild, for its replay to refuse). */
  testGarbledIndex: boolean
  embedder: 'local' | 'hashing' | 'openai'
  openAiApiKey?: string
  openAiBaseUrl?: string
  embeddingModel: string
  /** The OpenAI-compatible model's vector length (1536 for text-embedding-3-small). */
  embeddingDimensions: number
  /** Threads running the local model; one per core when unset. */
  embedWorkers?: number
  retentionSweepMs: number
  /** RabbitMQ for the job queue; the in-process queue when unset. */
  amqpUrl?: string
  amqpQueue: string
  fetchTimeoutMs: number
  parser: { timeoutMs: number; memoryMb: number; workers: number }
  syncScheduleMs: number
  /**
   * Where clients reach the service (`https://kb.example.com`): links it hands out are absolute from it. Unset, from
   * the request's own host.
   */
  publicUrl?: string
  /**
   * Public packs (no login): requests per minute per client address, and how long their citations are tallied before
   * one event records them.
   */
  packs: { requestsPerMinute: number; citationsFlushMs: number }
  /** How long an event stream (Server-Sent Events) stays silent before a heartbeat comment. */
  eventsHeartbeatMs: number
  /** Delays before each retry of a failed webhook delivery; after the last, the webhook is disabled. */
  webhookRetrySchedule: number[]
}

/** Variables whose whole value is a secret. */
const SECRET = /TOKEN|SECRET|PASSWORD|(^|_)KEY$/

/**
 * A bad value as a configuration error may show it: a secret not at all, a connection string without
 * its credentials (error messages reach logs and terminals).
 */
const shown = (name: string, value: unknown) => {
  if (SECRET.test(name)) return typeof value === 'string' ? `a value of ${value.length} characters` : 'no value'
  return JSON.stringify(typeof value === 'string' ? withoutCredentials(value) : value)
}

/** What the S3 store reads (BLOB_URL=s3://...); taken from the same environment as the rest. */
const S3_SETTINGS = [
  'S3_ENDPOINT',
  'S3_FORCE_PATH_STYLE',
  'AWS_REGION',
  'AWS_DEFAULT_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
]

/** Decodes the environment; Left is one line naming the variable and what it must be. */
export const loadConfig = (env: NodeJS.ProcessEnv): E.Either<string, Config> => {
  // A variable set to nothing (as Compose passes `${X:-}`) is unset.
  const decoded = ConfigCodec.decode(
    Object.fromEntries(Object.keys(ConfigCodec.props).map((k) => [k, env[k] === '' ? undefined : env[k]])),
  )
  if (E.isLeft(decoded)) {
    const error = decoded.left[0]
    const name = error.context[1]?.key ?? '?'
    const expected = error.context[error.context.length - 1].type.name
    return E.left(`Invalid configuration: ${name} must be ${expected} (got ${shown(name, error.value)})`)
  }
  const c = decoded.right
  if (c.EMBEDDER === 'openai' && !c.OPENAI_API_KEY)
    return E.left('Invalid configuration: OPENAI_API_KEY must be set when EMBEDDER is openai')
  // Processes of some roles work together through one database server and one broker.
  if (c.KB_ROLE.length < ROLES.length && (!c.DATABASE_URL || !c.AMQP_URL))
    return E.left(
      `Invalid configuration: KB_ROLE ${c.KB_ROLE.join(',')} runs part of the service, so the processes share one ` +
        'database and one broker: set DATABASE_URL and AMQP_URL',
    )
  if (c.KB_TEST_GARBLED_INDEX && env.NODE_ENV !== 'test')
    return E.left(
      'Invalid configuration: KB_TEST_GARBLED_INDEX breaks search on purpose, for tests (NODE_ENV=test) only',
    )
  return E.right({
    roles: c.KB_ROLE,
    port: c.PORT,
    host: c.HOST,
    dataDir: c.DATA_DIR,
    databaseUrl: c.DATABASE_URL,
    eventStoreUrl: c.EVENTSTORE_URL,
    elasticsearchUrl: c.ELASTICSEARCH_URL,
    elasticsearchReplicas: c.ELASTICSEARCH_REPLICAS,
    rerankUrl: c.RERANK_URL,
    rerankTimeoutMs: c.RERANK_TIMEOUT_MS,
    searchExactRows: c.SEARCH_EXACT_ROWS,
    blobUrl: c.BLOB_URL,
    s3Env: Object.fromEntries(S3_SETTINGS.map((name) => [name, env[name]])),
    blobRetryMs: c.BLOB_RETRY_MS,
    adminToken: c.KB_ADMIN_TOKEN,
    logLevel: c.LOG_LEVEL,
    readYourWritesTimeoutMs: c.READ_YOUR_WRITES_TIMEOUT_MS,
    shutdownTimeoutMs: c.SHUTDOWN_TIMEOUT_MS,
    allowPrivateUrls: c.KB_ALLOW_PRIVATE_URLS,
    checkAnswers: c.KB_CHECK_ANSWERS,
    testGarbledIndex: c.KB_TEST_GARBLED_INDEX,
    embedder: c.EMBEDDER,
    openAiApiKey: c.OPENAI_API_KEY,
    openAiBaseUrl: c.OPENAI_BASE_URL,
    embeddingModel: c.EMBEDDING_MODEL,
    embeddingDimensions: c.EMBEDDING_DIMENSIONS,
    embedWorkers: c.EMBED_WORKERS,
    retentionSweepMs: c.RETENTION_SWEEP_MS,
    amqpUrl: c.AMQP_URL,
    amqpQueue: c.AMQP_QUEUE,
    fetchTimeoutMs: c.FETCH_TIMEOUT_MS,
    parser: { timeoutMs: c.PARSE_TIMEOUT_MS, memoryMb: c.PARSER_MEMORY_MB, workers: c.PARSER_WORKERS },
    syncScheduleMs: c.SYNC_SCHEDULE_MS,
    publicUrl: c.PUBLIC_URL,
    packs: { requestsPerMinute: c.PACK_REQUESTS_PER_MINUTE, citationsFlushMs: c.PACK_CITATIONS_FLUSH_MS },
    eventsHeartbeatMs: c.EVENTS_HEARTBEAT_MS,
    webhookRetrySchedule: c.WEBHOOK_RETRY_SCHEDULE,
  })
}
