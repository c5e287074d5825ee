// `npm run bench -- upkeep`: hybrid search through the API in the first minute after a bulk load,
// and on a workspace left as the service leaves it after rewrites, each against the same searches
// once the search tables were vacuumed and analyzed by hand (the baseline, measured in the same run).
// PGlite runs no autovacuum: this shows what the service's own upkeep leaves behind.
import { apiClient, inParallel, workspaceTokens } from './client'
import { benchDocs, benchQueries } from './corpus'
import { BENCH_ADMIN, benchService, pct } from './service'

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 300)
const REWRITES = Number(process.env.BENCH_REWRITES ?? 2)
const WRITERS = 4
/** The first minute after the load, in windows of this many seconds. */
const WINDOW_S = 10

const TABLES = ['kb_chunks', 'kb_entries', 'kb_chunk_entries', 'kb_passages'].flatMap((t) => [t, `${t}_history`])

const EMBEDDER = process.env.BENCH_EMBEDDER ?? 'hashing'
const { service, stop } = await benchService('upkeep', EMBEDDER)
const call = apiClient(service.url)
try {
  const [token] = await workspaceTokens(call, BENCH_ADMIN, 1)
  const docs = benchDocs()
  const queries = benchQueries()
  let q = 0
  const search = async () => {
    const t = performance.now()
    await call('POST', '/api/v1/knowledge/search', token, { query: queries[q++ % queries.length], minScore: 0 })
    return performance.now() - t
  }
  /** Searches one after another for `seconds`. */
  const searchFor = async (seconds: number) => {
    const ms: number[] = []
    const until = Date.now() + seconds * 1000
    while (Date.now() < until) ms.push(await search())
    return ms
  }
  const text = (i: number, r: number) => `${docs[i % docs.length].text}\n\nCopy ${i}${r ? `, rewrite ${r}` : ''}.`
  const ids: string[] = []
  const t0 = Date.now()
  await inParallel(ENTRIES, WRITERS, async (i) => {
    ids[i] = (
      await call('POST', '/api/v1/knowledge', token, {
        title: docs[i % docs.length].title,
        source: 'text',
        content: text(i, 0),
      })
    ).id
  })
  process.stderr.write(`${ENTRIES} entries loaded in ${Math.round((Date.now() - t0) / 1000)} s\n`)
  const firstMinute: number[][] = []
  for (let w = 0; w < 60 / WINDOW_S; w++) firstMinute.push(await searchFor(WINDOW_S))
  for (let r = 1; r <= REWRITES; r++)
    await inParallel(ENTRIES, WRITERS, (i) =>
      call('PATCH', `/api/v1/knowledge/${ids[i]}`, token, { content: text(i, r) }),
    )
  // A pause with nothing asked (upkeep waits for quiet), then the workspace as the service left it.
  await new Promise((r) => setTimeout(r, 15_000))
  const settled = await searchFor(20)
  for (const table of TABLES) await service.deps.db.pool.query(`VACUUM (ANALYZE) ${table}`)
  const baseline = await searchFor(20)
  const base = pct(baseline, 50)
  const row = (label: string, ms: number[]) =>
    `| ${label} | ${ms.length} | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 95).toFixed(1)} | ` +
    `${(pct(ms, 50) / base).toFixed(2)} |`
  console.log(`\nHybrid search through the API, ${ENTRIES} entries, one client (PGlite, ${EMBEDDER} embedder)\n`)
  console.log('| when | searches | p50 ms | p95 ms | p50 / baseline |')
  console.log('|---|---:|---:|---:|---:|')
  firstMinute.forEach((ms, w) => console.log(row(`${w * WINDOW_S}-${(w + 1) * WINDOW_S} s after the load`, ms)))
  console.log(row(`after ${REWRITES} rewrites of every entry and 15 s quiet`, settled))
  console.log(row('baseline: after VACUUM (ANALYZE) of the search tables by hand', baseline))
} finally {
  await stop()
}
