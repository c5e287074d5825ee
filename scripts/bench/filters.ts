// `npm run bench -- filters` (BENCH_FILTER_CHUNKS, default 10000; BENCH_QUERIES, default 50): searches under a
// metadata filter. A workspace of that many chunks (the evaluation documents, repeated, in chunks of 100 tokens,
// hashing embedder, PGlite) whose entries carry `shard` 0-99 in turn, so `{ shard: { eq: 7 } }` matches 1 % of them.
// Each question is asked in vector mode with the filter (limit 10: is the page full, as far as the matching entries
// similar to it at all allow?), and in hybrid mode with and
// without it, alternating (ABBA), one client: hybrid p50 and p95 filtered against unfiltered.
import { benchDocs, benchQueries } from './corpus'
import { apiClient, workspaceTokens } from './client'
import { BENCH_ADMIN, benchService, pct } from './service'

const CHUNKS = Number(process.env.BENCH_FILTER_CHUNKS ?? 10_000)
const QUERIES = Number(process.env.BENCH_QUERIES ?? 50)
const say = (line: string) => process.stderr.write(`${line}\n`)
const docs = benchDocs()
const queries = benchQueries().slice(0, QUERIES)
const FILTER = { metadata: { shard: { eq: 7 } } }

const { service, stop } = await benchService('filters')
const call = apiClient(service.url)
try {
  const [token] = await workspaceTokens(call, BENCH_ADMIN, 1)
  await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 1_000_000 })
  const ws = (await call('POST', '/api/v1/auth/validate', token)).user.current_workspace as { id: string }
  const chunks = async () =>
    (await service.deps.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_chunks')).rows[0].n
  const t0 = performance.now()
  let created = 0
  const next = async () => {
    const n = created++
    const d = docs[n % docs.length]
    await call('POST', '/api/v1/knowledge', token, {
      title: `${d.title} #${n}`,
      source: 'text',
      content: `${d.text}\n\nCopy ${n}.`,
      metadata: { shard: n % 100 },
      chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 0 },
    })
  }
  while ((await chunks()) < CHUNKS) await Promise.all(Array.from({ length: 4 }, next))
  say(`built ${await chunks()} chunks in ${created} entries in ${((performance.now() - t0) / 1000).toFixed(0)} s`)

  const search = (query: string, mode: string, filter?: object) =>
    call('POST', '/api/v1/knowledge/search', token, {
      query,
      mode,
      limit: 10,
      minScore: 0,
      ...(filter ? { filter } : {}),
    })
  const timed = async (f: () => Promise<unknown>) => {
    const t = performance.now()
    await f()
    return performance.now() - t
  }
  for (const q of queries.slice(0, 10)) await search(q, 'hybrid', FILTER)
  // A full page: 10 results, or every entry the filter matches that is at all similar to the question (an exact
  // comparison of all their passages), where fewer.
  const { deps } = service
  let full = 0
  let matching = 0
  for (const q of queries) {
    const { results } = await search(q, 'vector', FILTER)
    const [vector] = await deps.embedder.embed([q])
    const similar = await deps.db.pool.query<{ n: number }>(
      `SELECT count(DISTINCT entry_id)::int AS n FROM kb_passages WHERE workspace_id = $1 AND model = $2
         AND embedding <=> $3::vector < 1
         AND entry_id IN (SELECT entry_id FROM kb_chunk_entries WHERE metadata @> '{"shard": 7}')`,
      [ws.id, deps.embedder.model, `[${vector.join(',')}]`],
    )
    if (results.length === Math.min(10, similar.rows[0].n)) full++
    if (results.every((r: { metadata: { shard?: number } }) => r.metadata.shard === 7)) matching++
  }
  const plain: number[] = []
  const filtered: number[] = []
  for (const [i, q] of queries.entries()) {
    const order = i % 2 === 0 ? [false, true] : [true, false]
    for (const f of [...order, ...order.reverse()])
      (f ? filtered : plain).push(await timed(() => search(q, 'hybrid', f ? FILTER : undefined)))
  }
  const row = (name: string, xs: number[]) =>
    `| ${name} | ${pct(xs, 50).toFixed(1)} | ${pct(xs, 95).toFixed(1)} | ${(pct(xs, 95) / pct(plain, 95)).toFixed(2)} |`
  process.stdout.write(
    [
      `${await chunks()} chunks, ${created} entries; the filter matches ${created / 100} entries`,
      '',
      `vector mode, filtered: ${full} of ${queries.length} questions got a full page (10, or every matching entry ` +
        'at all similar to the question, where fewer); ' +
        `${matching} of ${queries.length} answers held only matching entries`,
      '',
      '| hybrid | p50 ms | p95 ms | p95 / unfiltered |',
      '|---|---:|---:|---:|',
      row('unfiltered', plain),
      row('filtered (1 % of entries)', filtered),
      '',
    ].join('\n'),
  )
} finally {
  await stop()
}
