// The operator CLI: `npm run kb -- projections status | projections rebuild <name|all> | stream <streamId> | …`.
// With DATABASE_URL it opens the server directly (many processes may). On the embedded PGlite,
// which allows one process, it calls the running service's admin API, and opens DATA_DIR itself
// only when no service answers.
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { closest } from 'fastest-levenshtein'
import * as E from 'fp-ts/Either'
import { type Database, openDatabase } from '../adapters/db'
import { openEventStore } from '../adapters/eventstore'
import { createLogger } from '../adapters/logger'
import { ReceiptKeys } from '../adapters/receiptKeys'
import { loadConfig } from '../app/config'
import { type Service, startService } from '../app/service'
import { setupProjectors } from '../projections'
import { checkpointSchema } from '../projections/projector'
import { projectionStatus, rebuild, selectProjectors } from '../projections/operations'
import { ProjectionRunner } from '../projections/runner'
import { rebuildWithReplay, reembedAll } from '../commands/search'
import { projectors as capabilityProjectors, streams } from '../app/capabilities'
import { IMPORT_USAGE, importCommand } from './kb/import'
import { running } from './kb/importClient'
import { failure, print } from './kb/print'
import { replayOptions } from './kb/replay'

const usage =
  'usage: kb projections status | kb projections rebuild <name|all> [--replay [N]] [--max-lost <share>] [--force] ' +
  '[--judgments <file>] | kb stream <streamId> | kb reembed [--workspace <id>] | kb verify-chain [--workspace <id>] ' +
  `| kb receipt-keys list|rotate|remove <id> | ${IMPORT_USAGE} | kb --help`

const help = `kb: the operator's command line of the knowledge-base service

  kb projections status             each projector's position, lag and state
  kb projections rebuild <name|all> rebuild read models from the event log into fresh tables, then swap
      --replay [N]                  first ask the last N (200) distinct logged queries of each workspace of
                                    both the tables in service and the new ones, and compare the answers
      --max-lost <share>            refuse the swap when more queries lose their first result (10%)
      --force                       swap whatever the replay finds
      --judgments <file>            judged questions (the evaluation format): nDCG@10 of both sides
  kb stream <streamId>              a stream's events, one JSON object a line
  kb reembed [--workspace <id>]     after an embedding-model change: new vectors, swapped in at once
  kb verify-chain [--workspace <id>] check the hash chain of the events; names the first broken event
  kb receipt-keys list|rotate       the keys answer receipts are signed with; rotate makes a new one sign
  kb receipt-keys remove <id>       an older key's receipts are no longer checkable
  kb import <path> --workspace <id> [--folder <name>]
                                    load a folder (walked), a .zip, a .tar(.gz) or a .jsonl (one entry a line:
                                    title and content, or url; metadata, externalId, folder) into a workspace
                                    through the running service (or one of its own on DATA_DIR when none
                                    answers); a second run skips what is there
  kb --help                         this text

Stream ids are <kind>-<id>: entry-<id>, task-<id>, folder-<id>, page-<id>, collection-<id>,
proposal-<id>, search-<id>, user-<id>, workspace-<id>, token-<id>, apikey-<id>,
kbconfig-<workspaceId>, reembed-<workspaceId>, member-<workspaceId>_<userId>, rebuild-<id>. A bare id is read
as the stream of the entry, page, task, folder, collection or proposal it names.

With DATABASE_URL the CLI opens the server. On the embedded database it calls the running
service (KB_URL, default http://127.0.0.1:$PORT, with the admin token), and opens DATA_DIR itself
only when no service answers; kb import always goes through a service, the running one or, when none
answers, one it starts on DATA_DIR. Exit codes: 0 done, 1 a
failure (unreachable, refused, a broken chain, a rebuild whose replay refused the swap, an import
with entries that did not go in), 2 a mistake.
`

const COMMANDS = [
  'projections status',
  'projections rebuild',
  'stream',
  'reembed',
  'verify-chain',
  'receipt-keys list',
  'receipt-keys rotate',
  'receipt-keys remove',
  'import',
  '--help',
]

// Help needs nothing else: not even a valid configuration.
if (['--help', '-h', 'help'].includes(process.argv[2] ?? '')) {
  process.stdout.write(help)
  process.exit(0)
}

const die = (message: string): never => {
  process.stderr.write(`${message}\n`)
  process.exit(2)
}

/** An operator's mistake found with the database open: thrown, so that it is closed before the exit. */
class Refusal extends Error {}
const refuse = (message: string): never => {
  throw new Refusal(message)
}

const config = loadConfig(process.env)
const cfg = E.isLeft(config) ? die(config.left) : config.right
// Logs go to stderr: stdout is the commands' output (`kb stream` is one JSON event a line).
const log = createLogger(process.env.LOG_LEVEL ?? 'warn', 'stderr')

type Request = { method: string; path: string; body?: unknown }

/** The replay a rebuild's options ask for (none for a plain rebuild); a mistake in them ends here. */
const replayAsked = (args: string[]) => {
  const { asked, mistake } = replayOptions(args.slice(3))
  return mistake ? die(`kb: ${mistake}\n${usage}`) : asked
}

const requestOf = (args: string[]): Request => {
  const [a, b, c] = args
  if (a === 'projections' && b === 'status') return { method: 'GET', path: '/api/v1/admin/projections' }
  if (a === 'projections' && b === 'rebuild' && c)
    return {
      method: 'POST',
      path: `/api/v1/admin/projections/${encodeURIComponent(c)}/rebuild`,
      body: replayAsked(args) ?? {},
    }
  if (a === 'stream' && b) return { method: 'GET', path: `/api/v1/admin/streams/${encodeURIComponent(b)}` }
  if (a === 'reembed' && (b === undefined || (b === '--workspace' && c)))
    return { method: 'POST', path: '/api/v1/admin/reembed', body: c ? { workspaceId: c } : {} }
  if (a === 'verify-chain' && (b === undefined || (b === '--workspace' && c)))
    return { method: 'POST', path: '/api/v1/admin/verify-chain', body: c ? { workspaceId: c } : {} }
  if (a === 'receipt-keys' && b === 'list') return { method: 'GET', path: '/api/v1/admin/receipt-keys' }
  if (a === 'receipt-keys' && b === 'rotate') return { method: 'POST', path: '/api/v1/admin/receipt-keys' }
  if (a === 'receipt-keys' && b === 'remove' && c)
    return { method: 'DELETE', path: `/api/v1/admin/receipt-keys/${encodeURIComponent(c)}` }
  const asked = a === 'projections' || a === 'receipt-keys' ? `${a} ${b ?? ''}`.trim() : (a ?? '')
  const known = COMMANDS.some((command) => command === asked || command.startsWith(`${asked} `))
  return die(
    known || !asked ? usage : `kb: unknown command "${asked}"; did you mean "${closest(asked, COMMANDS)}"?\n${usage}`,
  )
}

const adminToken = () => {
  if (cfg.adminToken) return cfg.adminToken
  const file = path.join(cfg.dataDir, 'admin-token')
  return fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8').trim()
    : die(`no admin token: set KB_ADMIN_TOKEN or start the service once to create ${file}`)
}

const viaService = async (base: string, req: Request) => {
  const res = await fetch(base + req.path, {
    method: req.method,
    headers: { authorization: `Bearer ${adminToken()}`, ...(req.body ? { 'content-type': 'application/json' } : {}) },
    body: req.body ? JSON.stringify(req.body) : undefined,
  })
  const body = (await res
    .json()
    .catch(() => die(`${base} answered ${res.status} without the service's JSON: is KB_URL the service?`))) as {
    success: boolean
    data?: any
    error?: { code: string; message: string; details?: string[] }
  }
  if (!body.success) {
    const details = body.error?.details ? ` (${body.error.details.join('; ')})` : ''
    const message = `${body.error?.code}: ${body.error?.message}${details}`
    // An unknown name or a bad argument is the operator's mistake; a refused token or a failing service is a failure.
    return res.status === 400 || res.status === 404 ? die(message) : failure(message)
  }
  return body.data
}

/** The models of the vectors in the read models (none before the first projection ran). */
const vectorModels = async (db: Database) => {
  const models = new Set<string>()
  for (const table of ['kb_passages', 'kb_page_index']) {
    const { rows: exists } = await db.pool.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
      `public.${table}`,
    ])
    if (!exists[0].t) continue
    const { rows } = await db.pool.query<{ model: string }>(
      `SELECT DISTINCT model FROM ${table} WHERE model IS NOT NULL`,
    )
    for (const r of rows) models.add(r.model)
  }
  return [...models]
}

/**
 * Why DATA_DIR holds no database to open, if it holds none: a mistyped DATA_DIR must not read as an empty
 * knowledge base (opening it would create one).
 */
const noDatabase = () => {
  const pgDir = path.join(cfg.dataDir, 'pg')
  if (!cfg.databaseUrl && !fs.existsSync(pgDir))
    return `no database in ${pgDir}: is DATA_DIR right? (or is the service on another PORT, or at KB_URL?)`
}

const direct = async (args: string[]) => {
  const missing = noDatabase()
  if (missing) die(missing)
  const db = await openDatabase(cfg)
  const store = await openEventStore(db, cfg.eventStoreUrl)
  await db.pool.query(checkpointSchema)
  const { embedder, projectors, textIndex, vectors } = await setupProjectors(db, cfg, log, capabilityProjectors)
  try {
    const [a, b, c] = args
    if (a === 'projections' && b === 'status') return await projectionStatus(db, store, projectors)
    if (a === 'projections' && b === 'rebuild') {
      const selected =
        selectProjectors(projectors, c) ??
        refuse(`no projection named ${c}; one of all, ${projectors.map((p) => p.name).join(', ')}`)
      // A rebuild keeps the model of the vectors; one with another EMBEDDER would embed everything
      // again with it, and the service would then find no vectors of its own model.
      const models = selected.some((p) => p.name === 'chunks' || p.name === 'page-index') ? await vectorModels(db) : []
      if (models.length > 0 && !models.includes(embedder.model)) {
        refuse(
          `the read models hold vectors of ${models.join(', ')}, and EMBEDDER makes ${embedder.model}: rebuild with ` +
            `the service's EMBEDDER (to change the model, use kb reembed)`,
        )
      }
      const asked = replayAsked(args)
      if (!asked) return { rebuilt: await rebuild(db, store, selected, log) }
      const ctx = {
        actor: { kind: 'system' as const, process: 'kb' },
        at: new Date().toISOString(),
        correlationId: randomUUID(),
      }
      const options = { ...asked, queries: asked.replay }
      return await rebuildWithReplay({ db, store, log, embedder, textIndex, vectors }, selected, options, ctx)
    }
    if (a === 'reembed') {
      const done = await reembedAll(store, db.pool, embedder, c)
      const reports = E.isLeft(done) ? refuse(`${done.left.code}: ${done.left.message}`) : done.right
      // Direct mode has no running projector: apply the swap events now.
      await new ProjectionRunner(db, store, projectors, log).catchUp()
      return { reembedded: reports }
    }
    if (a === 'receipt-keys') {
      const keys = await ReceiptKeys.open(db)
      if (b === 'rotate') return { id: await keys.rotate(), keys: await keys.list() }
      if (b === 'remove') {
        const outcome = await keys.remove(c)
        if (outcome === 'signing') refuse('the signing key cannot be removed; rotate first')
        if (outcome === 'recent') refuse('other processes may still sign with this key for a minute after a rotation')
        if (outcome === 'unknown') refuse(`no receipt key ${c}`)
        return { removed: true, id: c }
      }
      return { keys: await keys.list() }
    }
    if (a === 'verify-chain')
      return store.verifyChain ? await store.verifyChain(c) : refuse('the event store in use keeps no hash chain')
    for (const streamId of streams.candidates(b)) {
      const events = await store.readStream(streamId)
      if (events.length > 0) return { streamId, events }
    }
    return refuse(`NOT_FOUND: no stream ${b}`)
  } finally {
    await embedder.close?.()
    await store.close()
    await db.close()
  }
}

/** The service, started in this process for an import when none runs: on loopback, on a free port. */
const ownService = () => {
  let service: Service | undefined
  return {
    start: async () => {
      const missing = noDatabase()
      if (missing) throw new Error(missing)
      service = await startService({ ...cfg, port: 0, host: '127.0.0.1' }, log)
      return service.url
    },
    stop: async () => service?.stop(),
  }
}

/**
 * Events a `kb stream` request to the service asks for (KB_STREAM_PAGE, default 1000); it pages on to the stream's end.
 */
const STREAM_PAGE = Number(process.env.KB_STREAM_PAGE ?? 1000)

const streamViaService = async (base: string, req: Request) => {
  const events: { revision: number }[] = []
  for (let from = 0; ; ) {
    const page = await viaService(base, { ...req, path: `${req.path}?fromRevision=${from}&limit=${STREAM_PAGE}` })
    events.push(...page.events)
    if (page.events.length < STREAM_PAGE) return { streamId: page.streamId, events }
    from = events[events.length - 1].revision + 1
  }
}

const args = process.argv.slice(2)
const base = process.env.KB_URL ?? `http://127.0.0.1:${cfg.port || 3000}`
// An import always goes through the service: the same admission, quotas and events as the API's. When none
// answers (and KB_URL names none), it starts one of its own on DATA_DIR (or DATABASE_URL), on a port of its own.
if (args[0] === 'import') {
  const own = process.env.KB_URL || (await running(base, 2000)) ? undefined : ownService()
  await importCommand(args.slice(1), { base, token: adminToken, mistake: die, failure, own })
}
const req = requestOf(args)
if (args[0] === 'stream' && !(Number.isInteger(STREAM_PAGE) && STREAM_PAGE >= 1 && STREAM_PAGE <= 10000))
  die(`KB_STREAM_PAGE must be an integer between 1 and 10000 (got "${process.env.KB_STREAM_PAGE}")`)
try {
  const data =
    process.env.KB_URL || (!cfg.databaseUrl && (await running(base, 2000)))
      ? await (args[0] === 'stream' ? streamViaService(base, req) : viaService(base, req))
      : await direct(args)
  print(args, data)
} catch (error) {
  // One line, never a stack: what failed (the service unreachable, the database refusing, ...).
  if (error instanceof Refusal) die(error.message)
  const cause = (error as Error & { cause?: Error }).cause
  failure(`kb: ${(error as Error).message}${cause?.message ? ` (${cause.message})` : ''}`)
}
