import fs from 'node:fs'
import path from 'node:path'
import { type Database, openDatabase } from '../adapters/db'
import { eventStoreEngine, openEventStore } from '../adapters/eventstore'
import type { Logger } from '../adapters/logger'
import { CitationLog } from '../commands/search'
import { ReceiptKeys } from '../adapters/receiptKeys'
import { hashSecret, newSecret } from '../commands/secrets'
import { setupProjectors } from '../projections'
import { dropShadowSchemas } from '../projections/rebuild'
import { ProjectionRunner } from '../projections/runner'
import { openBlobStore } from '../adapters/blobs'
import { MemoryQueue } from '../adapters/queue/memory'
import type { JobQueue } from '../adapters/queue/port'
import { RabbitQueue } from '../adapters/queue/rabbitmq'
import { rateLimitSchema } from '../adapters/rateLimit'
import { mcpSessionSchema } from '../adapters/mcpSessions'
import {
  WorkspaceLimiter,
  failDeadJob,
  runTask,
  startOutbox,
  startSyncScheduler,
  startRetentionSweeper,
} from '../workers/knowledge'
import { ParserPool } from '../ingestion/parserPool'
import { startWebhookDelivery } from '../workers/log'
import { startMaintenance } from '../workers/maintenance'
import { startEmbeddingFiller } from '../workers/search'
import { createApp } from '../api/app'
import { httpReranker } from '../adapters/reranker'
import { CredentialCache } from '../api/credentials'
import { type HttpServer, createHttpServer } from '../api/httpServer'
import { settleCitations } from '../api/settle'
import type { Config, Role } from './config'
import { holdLease } from '../adapters/lease'
import type { Deps } from '../api/deps'
import { projectors as capabilityProjectors, streams, surface } from './capabilities'

/** The admin token: KB_ADMIN_TOKEN, or one generated on first start into DATA_DIR/admin-token (0600). */
export const adminToken = (config: Config, log: Logger): string => {
  if (config.adminToken) return config.adminToken
  const file = path.join(config.dataDir, 'admin-token')
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim()
  fs.mkdirSync(config.dataDir, { recursive: true })
  const token = newSecret('kba')
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 })
  // Printed once, on the start that created it; later starts read the file.
  process.stderr.write(`Admin token (saved to ${file}): ${token}\n`)
  log.warn({ file }, 'generated a new admin token')
  return token
}

export interface Service {
  url: string
  deps: Deps
  http: HttpServer
  stop(): Promise<void>
  /** What a stop still waits for: the step, the requests being answered, the connections open. */
  pending(): { step: string; requests: string[]; connections: number }
}

/**
 * Share of SHUTDOWN_TIMEOUT_MS that requests get to finish; the rest is for appending and closing, which took
 * about a second on a machine loaded five times over its two cores (45 creates in flight at the signal were
 * answered at about ten a second there, so the requests' share is what a busy stop runs short of).
 */
const HTTP_SHARE = 0.75
/** Share of it that the searches' records still waiting get (the log may be refusing them). */
const SETTLE_SHARE = 0.1

export const startService = async (config: Config, log: Logger, database?: Database): Promise<Service> => {
  const db = database ?? (await openDatabase(config, log))
  const store = await openEventStore(db, config.eventStoreUrl, log)
  const { embedder, vectors, textIndex, projectors } = await setupProjectors(db, config, log, capabilityProjectors)
  await db.pool.query(rateLimitSchema)
  await db.pool.query(mcpSessionSchema)
  const has = (role: Role) => config.roles.includes(role)
  let closing = false
  // The projectors run in one process of the cluster, the holder of their lease; every other process follows
  // their positions (read-your-writes), and a process of the projector role takes over when the holder dies.
  const runner = new ProjectionRunner(db, store, projectors, log)
  await runner.follow()
  const projecting = has('projector')
    ? holdLease(db, 'projections', log, async () => {
        // A rebuild the last holder left half done is dropped; only the holder rebuilds.
        await dropShadowSchemas(db)
        await runner.start()
        // An index outside the database: built from the tables where it is missing or on an older mapping.
        void textIndex
          .open?.(
            db,
            projectors.flatMap((p) => p.mirrored ?? []),
          )
          .catch((error: Error) =>
            log.warn({ err: error }, 'the text index could not be prepared; searches use the database meanwhile'),
          )
        const filler = startEmbeddingFiller(db, embedder, vectors, log)
        const offWritten = ['chunks', 'page-index'].map((name) => runner.onWritten(name, filler.kick))
        return async () => {
          for (const off of offWritten) off()
          await filler.stop()
          await runner.stop()
          // Lost the lease: follow whoever takes it (a failure here is retried by the next takeover or restart).
          if (!closing)
            await runner.follow().catch((error: Error) => log.error({ err: error }, 'cannot follow the projections'))
        }
      })
    : undefined
  await projecting?.started
  const state = { ready: false, caughtUp: false }
  const queue: JobQueue = config.amqpUrl
    ? await RabbitQueue.connect(config.amqpUrl, log, config.amqpQueue)
    : new MemoryQueue()
  const blobs = await openBlobStore(config, db, log)
  const parsers = new ParserPool(config.parser)
  // Listening (below) once a parser worker has booted too: a create right after the start does not wait for one.
  const warmed = parsers.warm()
  let outbox: Awaited<ReturnType<typeof startOutbox>> | undefined
  // A task queued (or finished) reaches the outbox through the tasks projection: publish then.
  const offProgress = runner.onWritten('tasks', () => outbox?.kick())
  const stopped = new AbortController()
  const ingest = {
    store,
    db: db.pool,
    embedder,
    blobs,
    parsers,
    log,
    allowPrivateUrls: config.allowPrivateUrls,
    fetchTimeoutMs: config.fetchTimeoutMs,
    blobRetryMs: config.blobRetryMs,
    stopping: stopped.signal,
    limiter: new WorkspaceLimiter(10),
  }
  if (has('worker'))
    await queue.consume(
      (job) => runTask(ingest, job),
      (job, reason) => failDeadJob(ingest, job, reason),
      20,
    )
  // Webhook deliveries run beside the task workers, in one process of the cluster at a time (in order per webhook).
  const delivering = has('worker')
    ? holdLease(db, 'webhooks', log, async () =>
        startWebhookDelivery({
          db,
          store,
          runner,
          log,
          allowPrivateUrls: config.allowPrivateUrls,
          schedule: config.webhookRetrySchedule,
        }),
      )
    : undefined
  await delivering?.started
  // The entries read model is complete once every projector runs (none rebuilding or failed) at the head.
  const entriesComplete = async () =>
    runner.statuses().every((s) => s.state === 'running' || s.state === 'following') &&
    runner.waitFor(await store.headPosition(), 10_000)
  // The schedules (the outbox publisher, retention, URL sync, maintenance) run once across the cluster.
  const scheduling = has('scheduler')
    ? holdLease(db, 'scheduler', log, async () => {
        outbox = await startOutbox(db, queue, log)
        const stops = [
          startRetentionSweeper(db.pool, store, log, config.retentionSweepMs, { blobs, db: db.pool }, entriesComplete),
          startMaintenance(db, log, embedder),
          startSyncScheduler({ store, db: db.pool, embedder, parsers }, log, config.syncScheduleMs),
        ]
        return async () => {
          for (const stopOne of stops) stopOne()
          const stopping = outbox
          outbox = undefined
          await stopping?.stop()
        }
      })
    : undefined
  await scheduling?.started
  const deps: Deps = {
    config,
    db,
    store,
    runner,
    log,
    embedder,
    textIndex,
    vectors,
    adminTokenHash: hashSecret(adminToken(config, log)),
    state,
    blobs,
    parsers,
    queue,
    citations: new CitationLog(log, config.packs.citationsFlushMs),
    streams,
    receiptKeys: await ReceiptKeys.open(db),
    ...(config.rerankUrl ? { reranker: httpReranker(config.rerankUrl, config.rerankTimeoutMs) } : {}),
    credentials: new CredentialCache(),
    process: {
      roles: config.roles,
      eventStore: eventStoreEngine(db, config.eventStoreUrl),
      leases: () => ({
        ...(projecting ? { projections: projecting.held() ? 'held' : 'waiting' } : {}),
        ...(scheduling ? { scheduler: scheduling.held() ? 'held' : 'waiting' } : {}),
        ...(delivering ? { webhooks: delivering.held() ? 'held' : 'waiting' } : {}),
      }),
    },
  }
  // Credentials change with the accounts (tokens, keys, members) and with OAuth's grants.
  const offCredentials = ['accounts', 'oauth'].map((name) => runner.onWritten(name, () => deps.credentials.clear()))
  const { app, close: closeSessions } = createApp(deps, surface)
  const http = createHttpServer(app.callback(), log)
  await warmed
  const address = await http.listen(config.port, config.host)
  state.ready = true
  const url = `http://127.0.0.1:${address.port}`
  log.info({ url, database: db.kind, roles: config.roles }, 'service listening')
  // Ready once the read models hold what the log held at start: after a restart, events appended
  // before it are still being applied, and a list read meanwhile would count what its pages miss. A
  // projector waiting for a dependency (its engine down) does not hold readiness back: /health names it.
  const startHead = await store.headPosition()
  void (async () => {
    while (state.ready && !state.caughtUp) {
      const waiting = runner.statuses().some((s) => s.state === 'waiting')
      if (waiting || (await runner.waitFor(startHead, 1000))) state.caughtUp = true
    }
    if (state.caughtUp) log.info({ url, position: startHead }, 'service ready')
  })()

  let stopping: Promise<void> | undefined
  let step = 'running'
  const stop = () =>
    (stopping ??= (async () => {
      state.ready = false
      // Requests received are answered, open MCP streams end, then what is pending is appended
      // and the store closes cleanly.
      step = 'answering the requests received'
      const began = Date.now()
      const [cut] = await Promise.all([http.stop(config.shutdownTimeoutMs * HTTP_SHARE), closeSessions()])
      if (cut.length) log.warn({ requests: cut }, 'requests still unanswered when the time for them ran out were cut')
      closing = true
      offProgress()
      for (const off of offCredentials) off()
      // The searches' citations still waiting are appended, and counted before the runner stops.
      // Jobs in hand finish (or, on RabbitMQ, go back to the broker unacknowledged).
      let parsersClosed: Promise<void> | undefined
      const steps: [string, () => Promise<unknown>][] = [
        [
          'appending the citations pending',
          async () => {
            const settled = await settleCitations(deps, config.shutdownTimeoutMs * SETTLE_SHARE)
            if (!settled && deps.citations.waiting() > 0)
              log.warn({ lost: deps.citations.waiting() }, 'search records still waiting for the log are lost')
          },
        ],
        ['stopping the schedules', async () => scheduling?.stop()],
        ['stopping the webhook deliveries', async () => delivering?.stop()],
        ['closing the job queue', () => (stopped.abort(), queue.close())],
        // Ending the workers' threads took over a second on a loaded machine: it runs beside the steps after.
        ['closing the parser workers', async () => void (parsersClosed = parsers.close())],
        ['closing the blob store', async () => blobs.close?.()],
        ['stopping the projections', async () => (await projecting?.stop(), await runner.stop())],
        ['closing the embedder', async () => embedder.close?.()],
        ['closing the event store', () => store.close()],
        ['closing the text index', async () => textIndex.close?.()],
        ['closing the database', () => db.close()],
        ['ending the parser workers', async () => parsersClosed],
      ]
      // How long each step took, in the last line: where a stop that ran short of time spent it.
      const took: Record<string, number> = { 'answering the requests received': Date.now() - began }
      for (const [name, run] of steps) {
        step = name
        const at = Date.now()
        await run()
        took[name] = Date.now() - at
      }
      step = 'stopped'
      log.info({ ms: took }, 'service stopped')
    })())
  return { url, deps, http, stop, pending: () => ({ step, ...http.open() }) }
}
