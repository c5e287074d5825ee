// `npm run bench -- search-ingest`: hybrid search p95 through the API, one client, idle and while
// DOCS documents are created as text, 4 at once, once with the hashing embedder and once with the
// local model (BENCH_EMBEDDERS), in one run; BENCH_DOC_CHARS makes them long. The local model is the
// slow part of ingestion: what a search pays for it (its query waits for a model worker; the database
// is never held for the model) shows as the ratio of the two busy rows.
import { openClients, startLoad } from './load'
import { benchDocs, benchQueries } from './corpus'
import { apiClient, workspaceTokens } from './client'
import { BENCH_ADMIN, benchService, pct } from './service'

const BASE = Number(process.env.BENCH_BASE ?? 50)
const DOCS = Number(process.env.BENCH_DOCS ?? 100)
const EMBEDDERS = (process.env.BENCH_EMBEDDERS ?? 'hashing,local').split(',') as Array<'hashing' | 'local'>
/** Long documents instead (characters, at most the API's 100,000): the evaluation documents joined from the i-th. */
const DOC_CHARS = Number(process.env.BENCH_DOC_CHARS ?? 0)

const docs = benchDocs()
const created = (i: number) => {
  if (!DOC_CHARS) return `${docs[(BASE + i) % docs.length].text}\n\n`
  let text = ''
  for (let j = BASE + i; text.length < DOC_CHARS; j++) text += `${docs[j % docs.length].text}\n\n`
  // Room for the request's number.
  return `${text.slice(0, DOC_CHARS - 16)}\n\n`
}
const queries = benchQueries()

const row = async (embedder: 'hashing' | 'local') => {
  const { service, stop } = await benchService(`search-ingest-${embedder}`, embedder)
  try {
    const call = apiClient(service.url)
    const [token] = await workspaceTokens(call, BENCH_ADMIN, 1)
    await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 1_000_000 })
    for (let i = 0; i < BASE; i++) {
      const d = docs[i % docs.length]
      await call('POST', '/api/v1/knowledge', token, { title: d.title, source: 'text', content: d.text })
    }
    const search = openClients({
      url: service.url,
      token,
      path: '/api/v1/knowledge/search',
      clients: 1,
      bodies: queries.map((query) => ({ query, mode: 'hybrid', limit: 10, minScore: 0 })),
    })
    await search.run(queries.length)
    const idle = await search.run(queries.length)
    const t0 = performance.now()
    const writer = startLoad({
      url: service.url,
      token,
      path: '/api/v1/knowledge',
      clients: 4,
      count: DOCS,
      bodies: docs
        .slice(BASE)
        .map((d, i) => ({ title: `${d.title} (new)`, source: 'text', content: `${created(i)}{{i}}` })),
    })
    const busyRun = search.run(Number.POSITIVE_INFINITY)
    const creates = await writer.done
    const seconds = (performance.now() - t0) / 1000
    search.stop()
    const busy = await busyRun
    await search.close()
    return { embedder, idle, busy, creates, seconds }
  } finally {
    await stop()
  }
}

const rows: Awaited<ReturnType<typeof row>>[] = []
for (const embedder of EMBEDDERS) rows.push(await row(embedder))
console.log(`\nHybrid search, one client, ${BASE} entries, then ${DOCS} documents created 4 at once (PGlite)\n`)
console.log(
  '| embedder | idle p50 / p95 ms | while creating p50 / p95 ms | busy p95 / idle p95 | searches meanwhile ' +
    '| create p50 / p95 s | creates took s |',
)
console.log('|---|---:|---:|---:|---:|---:|---:|')
for (const r of rows)
  console.log(
    `| ${r.embedder} | ${pct(r.idle, 50).toFixed(1)} / ${pct(r.idle, 95).toFixed(1)} | ` +
      `${pct(r.busy, 50).toFixed(1)} / ${pct(r.busy, 95).toFixed(1)} | ` +
      `${(pct(r.busy, 95) / pct(r.idle, 95)).toFixed(2)} | ${r.busy.length} | ` +
      `${(pct(r.creates, 50) / 1000).toFixed(2)} / ${(pct(r.creates, 95) / 1000).toFixed(2)} | ` +
      `${r.seconds.toFixed(0)} |`,
  )
const [hashing, local] = ['hashing', 'local'].map((e) => rows.find((r) => r.embedder === e))
if (hashing && local)
  console.log(`\nbusy p95, local / hashing: ${(pct(local.busy, 95) / pct(hashing.busy, 95)).toFixed(2)}`)
process.exit(0)
