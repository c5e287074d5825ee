// `npm run bench -- search`: search latency through the HTTP API against the same index queries run
// directly on the same database in the same run, at growing corpus sizes; then hybrid p95 while
// ingestion runs beside it. Corpus: the evaluation documents, repeated, in chunks of 100 tokens.
// The HTTP clients run on threads of their own (load.ts); the direct SQL runs on the service's.
import { chunkScope } from '../../adapters/textIndex/port'
import { benchDocs, benchQueries } from './corpus'
import { analyzeSearchTables } from '../../workers/maintenance'
import { openClients, startLoad } from './load'
import {
  type Mode,
  embedQuery,
  inSnapshot,
  keep,
  rank,
  KNOWLEDGE_INDEX,
  hydrate,
  servedChunks,
} from '../../queries/search'
import { readKbConfig } from '../../queries/knowledge'
import { BENCH_ADMIN, benchService, pct } from './service'

const SIZES = (process.env.BENCH_CHUNKS ?? '10000,100000').split(',').map(Number)
const QUERIES_PER_RUN = Number(process.env.BENCH_QUERIES ?? 200)
// Each cell is measured in rounds that alternate the API and the direct SQL (ABBA), so that the
// machine's drift over a cell (it is shared) weighs on both sides alike.
const ROUNDS = 4
const docs = benchDocs()
const queries = benchQueries()

/**
 * Runs `op` `count` times (from query number `from` on) from `clients` concurrent loops; answers the latencies in ms.
 */
const latencies = async (clients: number, count: number, from: number, op: (i: number) => Promise<unknown>) => {
  const out: number[] = []
  let next = 0
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < count) {
        const i = from + next++
        const t = performance.now()
        await op(i)
        out.push(performance.now() - t)
      }
    }),
  )
  return out
}

const { service, stop } = await benchService('search')
const { deps } = service
let resets = 0
const call = async (p: string, token: string, body?: unknown, retry = true): Promise<any> => {
  let res: Response
  try {
    res = await fetch(service.url + p, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    })
  } catch (error) {
    // A pooled connection can be reset under the client as it reuses it; count it and try once more.
    if (!retry) throw error
    resets++
    return call(p, token, body, false)
  }
  const json = (await res.json()) as { success: boolean; data: any }
  if (!json.success) throw new Error(`${p}: ${JSON.stringify(json)}`)
  return json.data
}
const rows: string[] = []
try {
  const user = await call('/api/v1/admin/users', BENCH_ADMIN, { email: 'bench@example.com', name: 'Bench' })
  const ws = await call('/api/v1/admin/workspaces', BENCH_ADMIN, { name: 'Bench' })
  await call(`/api/v1/admin/workspaces/${ws.id}/members`, BENCH_ADMIN, { userId: user.id, role: 'owner' })
  const { access_token: token } = await call('/api/v1/admin/tokens', BENCH_ADMIN, {
    userId: user.id,
    workspaceId: ws.id,
  })
  const patch = await fetch(`${service.url}/api/v1/knowledge/config`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ maxDocuments: 1_000_000 }),
  })
  if (!patch.ok) throw new Error('config')
  let created = 0
  const ingest = async () => {
    const d = docs[created % docs.length]
    await call('/api/v1/knowledge', token, {
      title: `${d.title} #${created}`,
      source: 'text',
      content: `${d.text}\n\nCopy ${created}.`,
      chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 0 },
    })
    created++
  }
  /** Clients on a thread of their own (scripts/bench/load.ts), warmed with every query once. */
  const searchClients = async (mode: string, clients: number) => {
    const load = openClients({
      url: service.url,
      token,
      path: '/api/v1/knowledge/search',
      clients,
      bodies: queries.map((query) => ({ query, mode, limit: 10, minScore: 0 })),
    })
    await load.run(queries.length)
    return load
  }
  const chunkCount = async () =>
    (await deps.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_chunks')).rows[0].n
  const filters = {}
  // The SQL a search runs, called directly: the workspace's configuration, the index queries
  // (queries/search/ranking.ts), and reading the rows served.
  const directSearch = (mode: Mode) => async (query: string) => {
    const vector = await embedQuery(deps, mode, query)
    await inSnapshot(deps, async (tx) => {
      await readKbConfig(tx, ws.id)
      const ranked = await rank(
        deps,
        tx,
        {
          index: KNOWLEDGE_INDEX,
          workspaceId: ws.id,
          scope: chunkScope(ws.id, filters),
          query,
          mode,
          fusion: 'score',
          limit: 10,
        },
        vector,
      )
      const kept = keep(ranked.hits, 0, 10)
      await hydrate(
        tx,
        ws.id,
        query,
        kept,
        await servedChunks(
          tx,
          kept.map((h) => h.key),
          ranked.evidence,
          ranked.mode,
        ),
      )
    })
  }
  const direct = { text: directSearch('text'), vector: directSearch('vector'), hybrid: directSearch('hybrid') }
  for (const size of SIZES) {
    const t0 = Date.now()
    while ((await chunkCount()) < size) await ingest()
    await analyzeSearchTables(deps.db)
    process.stderr.write(
      `corpus: ${await chunkCount()} chunks (${created} entries), built in ${Math.round((Date.now() - t0) / 1000)} s\n`,
    )
    // Warm both paths alike: every query once in every mode, before either is measured.
    for (const mode of ['text', 'vector', 'hybrid'] as const) for (const q of queries) await direct[mode](q)
    for (const mode of ['text', 'vector', 'hybrid'] as const) {
      for (const clients of [1, 8]) {
        const load = await searchClients(mode, clients)
        const api: number[] = []
        const sql: number[] = []
        const per = Math.ceil(QUERIES_PER_RUN / ROUNDS)
        for (let r = 0; r < ROUNDS; r++) {
          const viaApi = async () => api.push(...(await load.run(per, r * per)))
          const viaSql = async () =>
            sql.push(...(await latencies(clients, per, r * per, (i) => direct[mode](queries[i % queries.length]))))
          if (r % 2 === 0) await viaApi().then(viaSql)
          else await viaSql().then(viaApi)
        }
        resets += load.resets()
        await load.close()
        rows.push(
          `| ${size.toLocaleString('en-US')} | ${mode} | ${clients} | ${pct(sql, 50).toFixed(1)} / ` +
            `${pct(sql, 95).toFixed(1)} | ${pct(api, 50).toFixed(1)} / ${pct(api, 95).toFixed(1)} | ` +
            `${(pct(api, 50) / pct(sql, 50)).toFixed(2)} |`,
        )
        process.stderr.write(`${rows[rows.length - 1]}\n`)
      }
    }
  }
  // Hybrid while ingestion runs at full speed beside it (one writer, its own client thread).
  const hybrid = await searchClients('hybrid', 1)
  const idle = await hybrid.run(QUERIES_PER_RUN)
  const writer = startLoad({
    url: service.url,
    token,
    path: '/api/v1/knowledge',
    clients: 1,
    count: Infinity,
    bodies: docs.map((d) => ({
      title: `${d.title} #w{{i}}`,
      source: 'text',
      content: `${d.text}\n\nWriter copy {{i}}.`,
      chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 0 },
    })),
  })
  const busy = await hybrid.run(QUERIES_PER_RUN)
  writer.stop()
  resets += hybrid.resets()
  await hybrid.close()
  const written = (await writer.done).length
  resets += writer.resets()
  process.stdout.write(
    '\n| chunks | mode | clients | direct p50 / p95 ms | API p50 / p95 ms | API p50 / direct p50 ' +
      '|\n|---:|---|---:|---:|---:|---:|\n',
  )
  process.stdout.write(
    `${rows.join('\n')}\n\nhybrid p95 idle ${pct(idle, 95).toFixed(1)} ms, ` +
      `while ingesting ${pct(busy, 95).toFixed(1)} ms (${written} entries written meanwhile): ` +
      `ratio ${(pct(busy, 95) / pct(idle, 95)).toFixed(2)}\n` +
      `${resets ? `(${resets} requests retried after a connection reset)\n` : ''}`,
  )
} finally {
  await stop()
}
process.exit(0)
