// `npm run bench -- ingest-text`: text entries of ~5,000 characters created through the HTTP API with
// the hashing embedder, against the same chunk + embed steps run in-process without the service, in
// the same run; then the local model's row on reference pages (./ingestReference.ts).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import { createEmbedder } from '../../adapters/embedders'
import { createLogger } from '../../adapters/logger'
import { loadConfig } from '../../app/config'
import { startService } from '../../app/service'
import { chunkText } from '../../ingestion/chunker'
import { runLoad } from './load'
import { apiClient, workspaceTokens } from './client'
import { longDocuments, printReference, referenceRow } from './ingestReference'

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 1000)
const ADMIN = 'bench-admin-token-0123456789'

// A deterministic corpus: sentences drawn from a fixed vocabulary by a small LCG.
const WORDS =
  'postgres vacuum index heap tuple page buffer query planner join hash merge sort cost estimate statistics ' +
  'analyze table column row lock transaction commit rollback snapshot isolation replica stream archive ' +
  'checkpoint wal segment'.split(' ')
const corpus = (n: number) => {
  let seed = 42
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  return Array.from({ length: n }, (_, i) => {
    let text = `Document ${i}. `
    while (text.length < 5000) {
      const len = 6 + Math.floor(rand() * 12)
      const s = Array.from({ length: len }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ')
      text += `${s[0].toUpperCase()}${s.slice(1)}. `
    }
    return text
  })
}

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]
const chunking = { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true }

const run = async (embedderName: 'hashing', n: number) => {
  const texts = corpus(n)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-ingest-'))
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: ADMIN,
    EMBEDDER: embedderName,
    LOG_LEVEL: 'silent',
  })
  if (E.isLeft(config)) throw new Error(config.left)

  // The floor: chunk + embed each text in-process.
  const embedder = createEmbedder(config.right)
  await embedder.embed(['warm up'])
  const floorLatency: number[] = []
  let chunks = 0
  let t0 = performance.now()
  for (const text of texts) {
    const t = performance.now()
    const cs = chunkText(text, chunking)
    await embedder.embed(cs.map((c) => c.text))
    chunks += cs.length
    floorLatency.push(performance.now() - t)
  }
  const floorSeconds = (performance.now() - t0) / 1000
  await embedder.close?.()

  // The service, through its HTTP API.
  const service = await startService(config.right, createLogger('silent'))
  const call = apiClient(service.url)
  const [access_token] = await workspaceTokens(call, ADMIN, 1)
  await call('PATCH', '/api/v1/knowledge/config', access_token, { maxDocuments: 1_000_000 })
  await call('POST', '/api/v1/knowledge', access_token, { title: 'warm up', source: 'text', content: 'warm up' })
  // One client, on a thread of its own (load.ts), creating the same entries one after another.
  t0 = performance.now()
  const apiLatency = await runLoad({
    url: service.url,
    token: access_token,
    path: '/api/v1/knowledge',
    clients: 1,
    count: n,
    bodies: texts.map((content, i) => ({ title: `Entry ${i}`, source: 'text', content })),
  })
  const apiSeconds = (performance.now() - t0) / 1000
  await service.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
  return {
    embedder: embedderName,
    entries: n,
    floorPerSecond: n / floorSeconds,
    apiPerSecond: n / apiSeconds,
    floorP50: pct(floorLatency, 50),
    floorP95: pct(floorLatency, 95),
    apiP50: pct(apiLatency, 50),
    apiP95: pct(apiLatency, 95),
    floorChunksPerSecond: chunks / floorSeconds,
  }
}

const f = (x: number, d = 1) => x.toFixed(d)
if (ENTRIES > 0) {
  const r = await run('hashing', ENTRIES)
  process.stdout.write(
    '\n| embedder | entries | in-process entries/s | API entries/s | ratio | in-process p50 / p95 ms | API p50 / p95 ' +
      'ms | p50 ratio | in-process chunks/s |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n',
  )
  process.stdout.write(
    `| ${r.embedder} | ${r.entries} | ${f(r.floorPerSecond)} | ${f(r.apiPerSecond)} | ` +
      `${f(r.apiPerSecond / r.floorPerSecond, 2)} | ${f(r.floorP50)} / ${f(r.floorP95)} | ${f(r.apiP50)} / ` +
      `${f(r.apiP95)} | ${f(r.apiP50 / r.floorP50, 2)} | ${f(r.floorChunksPerSecond)} |\n`,
  )
}
if (process.env.BENCH_LOCAL_DOCS !== '0') printReference(await referenceRow())
if (process.env.BENCH_LONG_KB !== '0') printReference(await referenceRow(longDocuments()), 'long documents')
process.exit(0)
