// `npm run bench -- ingest-files`: a mixed corpus of generated files (PDF, DOCX, HTML, Markdown;
// 1-50 pages) uploaded through the HTTP API and processed by the task pipeline, against the same
// parse + chunk + embed run in-process without the service, in the same run. Uploads are spread
// over workspaces because each may upload 20 a minute.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import { embeddingInput } from '../../adapters/embeddingCache'
import { createEmbedder } from '../../adapters/embedders'
import { createLogger } from '../../adapters/logger'
import { sniffType } from '../../ingestion/sniff'
import { loadConfig } from '../../app/config'
import { startService } from '../../app/service'
import { freshPostgres } from '../../testkit/db'
import { chunkText } from '../../ingestion/chunker'
import { ParserPool } from '../../ingestion/parserPool'
import { entryPassages } from '../../ingestion/passages'
import { type File, corpus, uploadAll } from './fileCorpus'

const FILES = Number(process.env.BENCH_FILES ?? 200)
const LOCAL_FILES = Number(process.env.BENCH_LOCAL_FILES ?? 40)
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672'
/** A Postgres server: the hashing rows run on it too, each in a database of its own. */
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const ADMIN = 'bench-admin-token-0123456789'
const POLL_MS = 250
/** BENCH_ROUNDS: pairs of measurements per row, alternating (default 2: floor, service, service, floor). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
/**
 * BENCH_ROWS: only the rows whose `embedder/database/queue` starts with one of these (comma-separated), e.g.
 * `hashing/PGlite`.
 */
const ROWS = process.env.BENCH_ROWS?.split(',') ?? ['']
/** Whether a row, or a prefix of rows such as `hashing/`, is among those asked for. */
const wanted = (key: string) => ROWS.some((r) => key.startsWith(r) || r.startsWith(key))

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]
const chunking = { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true }

/** The floor: the same parsers (worker pool), chunker and embedder, in-process, all files at once. */
const floor = async (files: File[], embedderName: string) => {
  const config = loadConfig({ EMBEDDER: embedderName, LOG_LEVEL: 'silent' })
  if (E.isLeft(config)) throw new Error(config.left)
  const embedder = createEmbedder(config.right)
  await embedder.embed(['warm up'])
  const parsers = new ParserPool(config.right.parser)
  await parsers.parse({ mimeType: 'text/plain', bytes: Buffer.from('warm up') })
  const t0 = performance.now()
  let chunks = 0
  const done: number[] = []
  // What the service embeds: each file's passages with its title, all files at once (the embedder
  // queues them as it does the service's tasks).
  await Promise.all(
    files.map(async (f) => {
      const sniffed = await sniffType(f.bytes, f.name)
      if (!sniffed.ok) throw new Error(sniffed.reason)
      const parsed = await parsers.parse({ mimeType: sniffed.mimeType, bytes: f.bytes })
      const cs = chunkText(parsed.text, chunking)
      const passages = entryPassages(parsed.text, cs, embedder.passageWords)
      await embedder.embed(passages.map((p) => embeddingInput(f.name, p.text)))
      chunks += cs.length
      done.push(performance.now() - t0)
    }),
  )
  const seconds = (performance.now() - t0) / 1000
  await parsers.close()
  await embedder.close?.()
  return { seconds, chunks, p95: pct(done, 95) }
}

/** The service on PGlite, or on a fresh database of the server (dropped when the service stops). */
const throughService = async (
  files: File[],
  embedderName: string,
  queue: 'memory' | 'rabbitmq',
  database: 'PGlite' | 'server',
) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-files-'))
  const env: Record<string, string> = {
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: ADMIN,
    EMBEDDER: embedderName,
    LOG_LEVEL: 'silent',
  }
  if (queue === 'rabbitmq') Object.assign(env, { AMQP_URL, AMQP_QUEUE: `kb.bench.${Date.now()}` })
  const config = loadConfig(env)
  if (E.isLeft(config)) throw new Error(config.left)
  const service = await startService(
    config.right,
    createLogger('silent'),
    database === 'server' ? await freshPostgres(SERVER_URL, 10) : undefined,
  )
  const r = await uploadAll(service.url, ADMIN, files, POLL_MS)
  if (queue === 'rabbitmq') await (service.deps.queue as unknown as { deleteQueues(): Promise<void> }).deleteQueues()
  await service.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
  return { seconds: r.seconds, chunks: r.chunks, p95: pct(r.latencies, 95) }
}

/** Several measurements of one side, as one: times summed, the p95s averaged. */
const merged = (rs: { seconds: number; chunks: number; p95: number }[]) => ({
  seconds: rs.reduce((a, r) => a + r.seconds, 0),
  chunks: rs.reduce((a, r) => a + r.chunks, 0),
  p95: rs.reduce((a, r) => a + r.p95, 0) / rs.length,
})

const rows: string[] = []
for (const [embedderName, n] of [
  ['hashing', FILES],
  ['local', LOCAL_FILES],
] as const) {
  if (!wanted(`${embedderName}/`)) continue
  const files = await corpus(n)
  for (const database of embedderName === 'hashing' ? (['PGlite', 'server'] as const) : (['PGlite'] as const)) {
    for (const queue of ['memory', 'rabbitmq'] as const) {
      if (!wanted(`${embedderName}/${database}/${queue}`)) continue
      // Floor and service alternate (floor, service, service, floor, ...), so that the machine's
      // drift during a row (this one is shared, and its speed swings by a third within minutes)
      // weighs on both sides alike instead of on whichever ran in the slow minutes.
      const floors: Awaited<ReturnType<typeof floor>>[] = []
      const services: Awaited<ReturnType<typeof throughService>>[] = []
      for (let round = 0; round < ROUNDS; round++) {
        const floorFirst = round % 2 === 0
        if (floorFirst) floors.push(await floor(files, embedderName))
        services.push(await throughService(files, embedderName, queue, database))
        if (!floorFirst) floors.push(await floor(files, embedderName))
      }
      const base = merged(floors)
      const r = merged(services)
      const f = (x: number, d = 1) => x.toFixed(d)
      const processed = n * ROUNDS
      rows.push(
        `| ${embedderName} | ${database} | ${queue} | ${n} | ` +
          `${f((processed / base.seconds) * 60)} / ${f((processed / r.seconds) * 60)} | ` +
          `${f(base.seconds / r.seconds, 2)} | ` +
          `${f(base.chunks / base.seconds)} / ${f(r.chunks / r.seconds)} | ` +
          `${f(r.chunks / r.seconds / (base.chunks / base.seconds), 2)} | ${f(base.p95 / 1000, 2)} / ` +
          `${f(r.p95 / 1000, 2)} | ${f(base.p95 / r.p95, 2)} |`,
      )
      process.stderr.write(
        `${rows[rows.length - 1]}  (rounds: floor ${floors.map((x) => f(x.seconds, 2)).join(', ')} s; service ` +
          `${services.map((x) => f(x.seconds, 2)).join(', ')} s)\n`,
      )
    }
  }
}
process.stdout.write(
  '\n| embedder | database | queue | files | files/min floor / API | ratio | chunks/s floor / API | ratio | p95 ' +
    'upload→searchable s floor / API | ratio |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n',
)
process.stdout.write(`${rows.join('\n')}\n`)
process.exit(0)
