// `npm run bench -- uploads`: upload-to-searchable throughput on the Postgres server with uploaded
// files kept in the database (the default there) against the same with them kept as local files
// (BLOB_URL=file://), in one run, rounds alternating (local, table, table, local, ...).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import { createLogger } from '../../adapters/logger'
import { loadConfig } from '../../app/config'
import { startService } from '../../app/service'
import { freshPostgres } from '../../testkit/db'
import { type File, corpus, uploadAll } from './fileCorpus'
import { BENCH_ADMIN, pct } from './service'

const FILES = Number(process.env.BENCH_FILES ?? 100)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2)
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

const run = async (files: File[], store: 'local' | 'postgres') => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-blobs-'))
  const db = await freshPostgres(SERVER_URL, 10)
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: BENCH_ADMIN,
    EMBEDDER: 'hashing',
    LOG_LEVEL: 'silent',
    ...(store === 'local' ? { BLOB_URL: `file://${path.join(dataDir, 'blobs')}` } : {}),
  })
  if (E.isLeft(config)) throw new Error(config.left)
  const service = await startService(config.right, createLogger('silent'), db)
  if (service.deps.blobs.kind !== store) throw new Error(`expected the ${store} store, got ${service.deps.blobs.kind}`)
  const r = await uploadAll(service.url, BENCH_ADMIN, files)
  await service.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
  return r
}

const files = await corpus(FILES)
const megabytes = files.reduce((n, f) => n + f.bytes.length, 0) / 1e6
const results = { local: [] as Awaited<ReturnType<typeof run>>[], postgres: [] as Awaited<ReturnType<typeof run>>[] }
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? (['local', 'postgres'] as const) : (['postgres', 'local'] as const)
  for (const store of order) results[store].push(await run(files, store))
}
const rate = (rs: { seconds: number }[]) => (FILES * rs.length) / rs.reduce((a, r) => a + r.seconds, 0)
const p95 = (rs: { latencies: number[] }[]) =>
  pct(
    rs.flatMap((r) => r.latencies),
    95,
  ) / 1000
console.log(`\n${FILES} files (${megabytes.toFixed(1)} MB: PDF, DOCX, HTML, Markdown), ${ROUNDS} rounds each, server`)
console.log('| uploaded files kept | files/s | p95 upload to searchable (s) |')
console.log('|---|---:|---:|')
console.log(`| local files (BLOB_URL=file://) | ${rate(results.local).toFixed(2)} | ${p95(results.local).toFixed(1)} |`)
console.log(
  `| the database's table (default) | ${rate(results.postgres).toFixed(2)} | ${p95(results.postgres).toFixed(1)} |`,
)
console.log(`\nratio table / local: ${(rate(results.postgres) / rate(results.local)).toFixed(2)}`)
process.exit(0)
