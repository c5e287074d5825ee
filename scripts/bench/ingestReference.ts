// The local model's row of `npm run bench -- ingest-text`: the PostgreSQL evaluation set's reference
// pages created as text through the API, 4 in flight, against the model-only floor: the same
// passages (each with its title, as the service embeds them), embedded by a pool of as many model
// threads on the same cores, 4 documents in flight, with no database. Beside the ratio: where the
// service's thread spent its time (a CPU profile), what share of the creates' time was the wait
// for the model, the bytes on disk per MB of text, and the vector layouts' recall@10.
import fs from 'node:fs'
import { cpus } from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { embeddingInput } from '../../adapters/embeddingCache'
import { defaultEmbedWorkers, localEmbedder } from '../../adapters/embedders/local'
import { chunkSections } from '../../ingestion/chunker'
import { entryPassages } from '../../ingestion/passages'
import { SETS, loadDocs, loadQuestions } from '../eval/sets'
import { apiClient, inParallel, workspaceTokens } from './client'
import { startLoad } from './load'
import { startProfile, startSqlProfile, startThreadCpu } from './profile'
import { BENCH_ADMIN, benchService, pct } from './service'
import { vectorRecall } from './vectorRecall'

const DOCS = Number(process.env.BENCH_LOCAL_DOCS ?? 354)
const IN_FLIGHT = 4
const CHUNKING = { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true }
export const postgres = SETS.find((s) => s.name === 'postgres')!

/** Each document's passages as the service embeds them. */
export const passagesOf = (docs: { title: string; text: string }[], words: number) =>
  docs.map((d) => {
    const { content, chunks } = chunkSections([{ text: d.text }], CHUNKING)
    return entryPassages(content, chunks, words).map((p) => embeddingInput(d.title, p.text))
  })

/** Seconds for the model alone to embed every document's passages, `workers` threads, 4 documents in flight. */
export const modelFloor = async (passages: string[][], workers = defaultEmbedWorkers()) => {
  const embedder = localEmbedder(workers)
  try {
    await embedder.embed(['warm up', 'the model'])
    const t0 = performance.now()
    await inParallel(passages.length, IN_FLIGHT, (i) => embedder.embed(passages[i]))
    return (performance.now() - t0) / 1000
  } finally {
    await embedder.close?.()
  }
}

const dirBytes = (dir: string): number =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .reduce(
      (n, e) => n + (e.isDirectory() ? dirBytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size),
      0,
    )

/**
 * Long documents (BENCH_LONG_KB, sizes in kB, default 25,50,100,200,400): the PostgreSQL set's reference pages
 * one after another, each under its title as a heading, until a document reaches its size.
 */
export const longDocuments = () => {
  const sizes = (process.env.BENCH_LONG_KB ?? '25,50,100,200,400').split(',').map(Number)
  const pages = loadDocs(postgres)
  let next = 0
  return sizes.map((kb, i) => {
    let text = ''
    while (Buffer.byteLength(text) < kb * 1000) {
      const page = pages[next++ % pages.length]
      text += `${text ? '\n\n' : ''}## ${page.title}\n\n${page.text}`
    }
    return { id: `long-${i}`, title: `PostgreSQL manual, part ${i + 1} (${kb} kB)`, text }
  })
}

/** The reference pages (BENCH_LOCAL_DOCS of them), or `docs`, created as text through the API against the floor. */
export const referenceRow = async (docs = loadDocs(postgres).slice(0, DOCS)) => {
  const textMb = docs.reduce((n, d) => n + Buffer.byteLength(d.text), 0) / 1e6
  const passages = passagesOf(docs, 40)
  const floorSeconds = await modelFloor(passages)

  const { service, dataDir, stop } = await benchService('ingest-reference', 'local')
  try {
    const call = apiClient(service.url)
    const [token] = await workspaceTokens(call, BENCH_ADMIN, 1)
    await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 1_000_000 })
    await call('POST', '/api/v1/knowledge', token, { title: 'warm up', source: 'text', content: 'warm up' })
    const db = service.deps.db
    await db.pool.query('CHECKPOINT')
    const diskBefore = dirBytes(dataDir)
    // The wait for the model, as the creates see it: each call from its start to its vectors.
    const embedder = service.deps.embedder
    const embed = embedder.embed.bind(embedder)
    let modelMs = 0
    ;(embedder as { embed: typeof embed }).embed = async (texts) => {
      const t = performance.now()
      try {
        return await embed(texts)
      } finally {
        if (texts.length > 2) modelMs += performance.now() - t
      }
    }
    const sqlBefore = db.busyMs?.() ?? 0
    const profile = await startProfile()
    const statements = await startSqlProfile()
    const threads = startThreadCpu()
    const t0 = performance.now()
    const latencies = await startLoad({
      url: service.url,
      token,
      path: '/api/v1/knowledge',
      clients: IN_FLIGHT,
      count: docs.length,
      bodies: docs.map((d) => ({ title: d.title, source: 'text', content: d.text })),
    }).done
    const serviceSeconds = (performance.now() - t0) / 1000
    const where = await profile.stop()
    const cpu = threads.stop(embedder.threadIds?.() ?? [])
    const sql = statements.stop()
    const idleMs = where.find(([name]) => name === 'idle')?.[1] ?? 0
    const sqlSeconds = ((db.busyMs?.() ?? 0) - sqlBefore) / 1000
    ;(embedder as { embed: typeof embed }).embed = embed
    await db.pool.query('CHECKPOINT')
    const diskMb = (dirBytes(dataDir) - diskBefore) / 1e6
    const { rows: tables } = await db.pool.query<{ name: string; bytes: string }>(
      `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'
       ORDER BY pg_total_relation_size(c.oid) DESC LIMIT 8`,
    )
    const questions = loadQuestions(postgres).map((q) => q.query)
    const queryVectors = await embedder.embed(questions)
    const recall = await vectorRecall(db, embedder.model, embedder.dimensions, queryVectors)
    return {
      docs: docs.length,
      passages: passages.reduce((n, p) => n + p.length, 0),
      textMb,
      floorPerSecond: docs.length / floorSeconds,
      servicePerSecond: docs.length / serviceSeconds,
      serviceSeconds,
      p50: pct(latencies, 50),
      p95: pct(latencies, 95),
      modelShare: modelMs / latencies.reduce((s, x) => s + x, 0),
      threadBusy: 1 - idleMs / 1000 / serviceSeconds,
      sqlSeconds,
      where,
      cpu,
      sql: sql.slice(0, 12),
      diskMbPerTextMb: diskMb / textMb,
      tables: tables.map((t) => ({ name: t.name, mbPerTextMb: Number(t.bytes) / 1e6 / textMb })),
      recall,
      queries: questions.length,
    }
  } finally {
    await stop()
  }
}

const f = (x: number, d = 2) => x.toFixed(d)

export const printReference = (r: Awaited<ReturnType<typeof referenceRow>>, what = 'reference pages') => {
  const out = (line = '') => process.stdout.write(`${line}\n`)
  out(`\nLocal model: ${r.docs} ${what} (${f(r.textMb)} MB of text, ${r.passages} passages), ${IN_FLIGHT} in flight`)
  out('\n| | pages/s | ratio | create p50 / p95 s | model wait share | service thread busy | SQL s |')
  out('|---|---:|---:|---:|---:|---:|---:|')
  out(`| model alone (floor) | ${f(r.floorPerSecond, 3)} | | | | | |`)
  out(
    `| service (API) | ${f(r.servicePerSecond, 3)} | ${f(r.servicePerSecond / r.floorPerSecond)} | ` +
      `${f(r.p50 / 1000, 1)} / ${f(r.p95 / 1000, 1)} | ${f(r.modelShare)} | ${f(r.threadBusy)} | ` +
      `${f(r.sqlSeconds, 1)} |`,
  )
  if (r.cpu)
    out(
      `\nCPU seconds by thread over the ${f(r.serviceSeconds, 0)} s (${f(r.serviceSeconds * cpus().length, 0)} on ` +
        `${cpus().length} cores): the service's thread (its JavaScript and PGlite) ${f(r.cpu.service, 1)}, the ` +
        `model's threads ${f(r.cpu.model, 1)}, other threads (parsers, chunkers, GC, libuv) ${f(r.cpu.other, 1)}`,
    )
  out(`\nThe service's thread over the ${f(r.serviceSeconds, 0)} s (CPU profile, ms):`)
  for (const [name, ms] of r.where) out(`- ${name}: ${ms.toFixed(0)}`)
  out('\nSQL statements by time (ms, count):')
  for (const [text, s] of r.sql) out(`- ${s.ms.toFixed(0)} (${s.n}): ${text}`)
  out(
    `\nOn disk: ${f(r.diskMbPerTextMb, 1)} MB per MB of text (the data directory's growth). ` +
      'Largest tables, MB per MB of text:',
  )
  for (const t of r.tables) out(`- ${t.name}: ${f(t.mbPerTextMb)}`)
  out(`\nVector layouts, HNSW (m = 8, ef_search 300) against the exact nearest, ${r.queries} questions:`)
  out('\n| layout | recall@10 | bytes per vector (table + index) | index build s | query ms |')
  out('|---|---:|---:|---:|---:|')
  for (const v of r.recall)
    out(
      `| ${v.layout} | ${f(v.recall, 3)} | ${v.bytesPerVector.toFixed(0)} | ${f(v.indexSeconds, 1)} | ` +
        `${f(v.queryMs)} |`,
    )
}
