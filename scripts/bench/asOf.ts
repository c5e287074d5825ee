// `npm run bench -- as-of`: search as of a past moment against search now, through the API, in the
// same run on the same service. The corpus (the evaluation documents in chunks of 100 tokens, to
// BENCH_CHUNKS chunks) has every entry rewritten BENCH_REWRITES times, each rewrite changing one
// sentence, so the index's history holds (rewrites + 1) versions of every chunk. The past moment is
// the middle of the rewrites. Each mode is measured in rounds alternating now and then (ABBA). Then a comparison of
// one search at the middle rewrite and now, against its two as-of searches.
import { analyzeSearchTables } from '../../workers/maintenance'
import { apiClient, inParallel, workspaceTokens } from './client'
import { benchDocs, benchQueries } from './corpus'
import { openClients } from './load'
import { BENCH_ADMIN, benchService, pct } from './service'

const CHUNKS = Number(process.env.BENCH_CHUNKS ?? 10_000)
const REWRITES = Number(process.env.BENCH_REWRITES ?? 5)
const QUERIES_PER_RUN = Number(process.env.BENCH_QUERIES ?? 200)
const ROUNDS = 4
/** Writers at once while the corpus is built and rewritten. */
const WRITERS = 4

const { service, stop } = await benchService('asof')
const { deps } = service
const call = apiClient(service.url)
const count = async (table: string) =>
  (await deps.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n
try {
  const [token] = await workspaceTokens(call, BENCH_ADMIN, 1)
  await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 1_000_000 })
  const docs = benchDocs()
  const queries = benchQueries()
  const text = (i: number, rewrite: number) =>
    `${docs[i % docs.length].text}\n\nCopy ${i}${rewrite ? `, rewrite ${rewrite}` : ''}.`
  const t0 = Date.now()
  const ids: string[] = []
  while ((await count('kb_chunks')) < CHUNKS) {
    const from = ids.length
    await inParallel(50, WRITERS, async (k) => {
      const i = from + k
      const d = docs[i % docs.length]
      ids[i] = (
        await call('POST', '/api/v1/knowledge', token, {
          title: `${d.title} #${i}`,
          source: 'text',
          content: text(i, 0),
          chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 0 },
        })
      ).id
    })
  }
  const built = Date.now() - t0
  let middle = ''
  for (let r = 1; r <= REWRITES; r++) {
    await inParallel(ids.length, WRITERS, (i) =>
      call('PATCH', `/api/v1/knowledge/${ids[i]}`, token, { content: text(i, r) }),
    )
    if (r === Math.ceil(REWRITES / 2)) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      middle = new Date().toISOString()
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  const rewritten = Date.now() - t0 - built
  await analyzeSearchTables(deps.db)
  const chunks = await count('kb_chunks')
  const history = await count('kb_chunks_history')
  // The disk of the passages now and of their history, with their indexes (vectors are most of both).
  const mb = async (table: string) =>
    (
      Number((await deps.db.pool.query<{ n: string }>('SELECT pg_total_relation_size($1) AS n', [table])).rows[0].n) /
      2 ** 20
    ).toFixed(1)
  const disk = `passages ${await mb('kb_passages')} MB, their history ${await mb('kb_passages_history')} MB`
  process.stderr.write(
    `corpus: ${chunks} chunks (${ids.length} entries) built in ${Math.round(built / 1000)} s; ` +
      `${REWRITES} rewrites in ${Math.round(rewritten / 1000)} s; history ${history} chunk rows; ${disk}\n`,
  )
  /** Each mode now and as of the middle rewrite, in rounds alternating the two (ABBA). */
  const measure = async (tables: string) => {
    const rows: string[] = []
    for (const mode of ['text', 'vector', 'hybrid']) {
      const open = (asOf?: string) =>
        openClients({
          url: service.url,
          token,
          path: '/api/v1/knowledge/search',
          clients: 1,
          bodies: queries.map((query) => ({ query, mode, limit: 10, minScore: 0, ...(asOf ? { asOf } : {}) })),
        })
      const [now, then] = [open(), open(middle)]
      // Warm both alike: every query once.
      await now.run(queries.length)
      await then.run(queries.length)
      const a: number[] = []
      const b: number[] = []
      const per = Math.ceil(QUERIES_PER_RUN / ROUNDS)
      for (let r = 0; r < ROUNDS; r++) {
        const viaNow = async () => a.push(...(await now.run(per, r * per)))
        const viaThen = async () => b.push(...(await then.run(per, r * per)))
        if (r % 2 === 0) await viaNow().then(viaThen)
        else await viaThen().then(viaNow)
      }
      await now.close()
      await then.close()
      rows.push(
        `| ${tables} | ${mode} | ${pct(a, 50).toFixed(1)} / ${pct(a, 95).toFixed(1)} | ${pct(b, 50).toFixed(1)} / ` +
          `${pct(b, 95).toFixed(1)} | ${(pct(b, 50) / pct(a, 50)).toFixed(2)} |`,
      )
      process.stderr.write(`${rows[rows.length - 1]}\n`)
    }
    return rows
  }
  // As the service leaves them (PGlite runs no autovacuum: the rewritten rows of now are dead
  // tuples its indexes still hold), then after VACUUM, as a server's autovacuum would leave them.
  const rows = await measure('as left')
  for (const table of ['kb_chunks', 'kb_chunk_entries', 'kb_passages'])
    for (const t of [table, `${table}_history`]) await deps.db.pool.query(`VACUUM ANALYZE ${t}`)
  rows.push(...(await measure('vacuumed')))
  // Compare (POST /knowledge/search/compare): the same hybrid search as of the middle rewrite and as of now (the
  // position the read models had reached), against its two as-of searches asked one after the other (ABBA).
  const answered = await call('POST', '/api/v1/knowledge/search', token, { query: queries[0], mode: 'text' })
  const head = `pos:${answered.receipt.position}`
  const asked = (query: string) => ({ query, mode: 'hybrid', limit: 10, minScore: 0 })
  const timed = async (f: () => Promise<unknown>) => {
    const t = performance.now()
    await f()
    return performance.now() - t
  }
  const compare = (query: string) =>
    timed(() => call('POST', '/api/v1/knowledge/search/compare', token, { ...asked(query), from: middle, to: head }))
  const pair = (query: string) =>
    timed(async () => {
      await call('POST', '/api/v1/knowledge/search', token, { ...asked(query), asOf: middle })
      await call('POST', '/api/v1/knowledge/search', token, { ...asked(query), asOf: head })
    })
  const compared: number[] = []
  const paired: number[] = []
  for (const query of queries.slice(0, 10)) await compare(query).then(() => pair(query))
  for (const [i, query] of queries.slice(0, Math.min(100, queries.length)).entries()) {
    if (i % 2 === 0) compared.push(await compare(query)), paired.push(await pair(query))
    else paired.push(await pair(query)), compared.push(await compare(query))
  }
  const ms = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 95).toFixed(1)}`
  const ratio = (pct(compared, 50) / pct(paired, 50)).toFixed(2)
  const compareRow = `| compare (hybrid) | ${ms(compared)} | ${ms(paired)} | ${ratio} |`
  process.stdout.write(
    `\n${chunks.toLocaleString('en-US')} chunks, ${REWRITES} rewrites of every entry ` +
      `(${history.toLocaleString('en-US')} chunk rows of history; ${disk}), as of the middle rewrite\n\n` +
      '| tables | mode | now p50 / p95 ms | as of p50 / p95 ms | as of p50 / now p50 |\n|---|---|---:|---:|---:|\n' +
      `${rows.join('\n')}\n\n` +
      '| vacuumed | compare p50 / p95 ms | its two as-of searches p50 / p95 ms | compare p50 / the two p50 |\n' +
      `|---|---:|---:|---:|\n${compareRow}\n`,
  )
} finally {
  await stop()
}
process.exit(0)
