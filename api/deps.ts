import type { Logger } from 'pino'
import type { BlobStore } from '../adapters/blobs'
import type { JobQueue } from '../adapters/queue/port'
import type { Database } from '../adapters/db'
import type { Embedder } from '../adapters/embedders/port'
import type { TextIndex } from '../adapters/textIndex/port'
import type { EventStore } from '../adapters/eventstore/port'
import type { CitationLog } from '../commands/search'
import type { ReceiptKeys } from '../adapters/receiptKeys'
import type { Reranker } from '../adapters/reranker'
import type { ProjectionRunner } from '../projections/runner'
import type { ParserPool } from '../ingestion/parserPool'
import type { StreamCatalog } from '../commands/streams'
import type { CredentialCache } from './credentials'

/** The settings the HTTP API reads; the service's configuration (app/config.ts) holds them with the rest. */
export interface ApiSettings {
  readYourWritesTimeoutMs: number
  allowPrivateUrls: boolean
  /** Where clients reach the service; links are absolute from it (else from the request's origin). */
  publicUrl?: string
  packs: { requestsPerMinute: number; citationsFlushMs: number }
  eventsHeartbeatMs: number
  /** Rows a filtered search's scope may hold for its legs to read them all rather than their index. */
  searchExactRows: number
  /** Each answer checked against its route's declared codec (the test suite turns it on). */
  checkAnswers: boolean
}

/** What route handlers are given: the store to write, the database to read, the runner to wait on. */
export interface Deps {
  config: ApiSettings
  db: Database
  store: EventStore
  runner: ProjectionRunner
  log: Logger
  embedder: Embedder
  textIndex: TextIndex
  /** Whether pgvector is there: without it vector search falls back to text. */
  vectors: boolean
  /** Token and key lookups, cleared whenever the accounts projection writes. */
  credentials: CredentialCache
  /** SHA-256 of the admin token. */
  adminTokenHash: string
  blobs: BlobStore
  /** Parsers and the chunker, in worker threads. */
  parsers: ParserPool
  queue: JobQueue
  /** What searches served (citations, receipts' records), appended after their answers by group commit. */
  citations: CitationLog
  /** The stream categories the capabilities declare: what members read of the log, what operators look up. */
  streams: StreamCatalog
  /** The keys answer receipts are signed with. */
  receiptKeys: ReceiptKeys
  /** The reranking model's server (RERANK_URL), when one is configured. */
  reranker?: Reranker
  /**
   * `ready`: cleared while the service drains on shutdown. `caughtUp`: the read models reached the
   * log's head as it stood when the service started (until then lists and searches would miss what
   * was appended before a restart, and `/health` says not ready).
   */
  state: { ready: boolean; caughtUp: boolean }
  /** What this process runs (KB_ROLE), the cluster-wide work it holds the lease of, and the engine of its events. */
  process: { roles: string[]; leases: () => Record<string, 'held' | 'waiting'>; eventStore: string }
}
