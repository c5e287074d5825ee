// `npm run bench -- rerank`: what reranking adds to a search's latency. A hybrid search through the
// HTTP API with reranking off, then on, against a reranking server on this machine that answers at
// once (its own time is the model's, which is not measured here: no model runs on this machine), in
// alternating rounds on the same workspace. Reports p50 and p95 of both, and their ratio.
import http from 'node:http'
import { benchDocs, benchQueries } from './corpus'
import { BENCH_ADMIN, benchService, pct } from './service'

const QUERIES = Number(process.env.BENCH_QUERIES ?? 100)
const ROUNDS = 4

const reranker = http.createServer((req, res) => {
  let body = ''
  req.on('data', (d) => (body += d))
  req.on('end', () => {
    const { documents, top_n } = JSON.parse(body) as { documents: string[]; top_n: number }
    const results = documents.map((_, index) => ({ index, relevance_score: 1 / (index + 1) })).slice(0, top_n)
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }))
  })
})
await new Promise<void>((resolve) => reranker.listen(0, '127.0.0.1', resolve))
const { port } = reranker.address() as { port: number }
const { service, stop } = await benchService('rerank', 'hashing', { RERANK_URL: `http://127.0.0.1:${port}` })

const call = async (method: string, p: string, token: string, body?: unknown) => {
  const res = await fetch(service.url + p, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  })
  const json = (await res.json()) as { success: boolean; data: any }
  if (!json.success) throw new Error(`${p}: ${JSON.stringify(json)}`)
  return json.data
}
const admin = (p: string, body: unknown) => call('POST', p, BENCH_ADMIN, body)
const user = await admin('/api/v1/admin/users', { email: 'bench@example.com', name: 'Bench' })
const ws = await admin('/api/v1/admin/workspaces', { name: 'Bench' })
await admin(`/api/v1/admin/workspaces/${ws.id}/members`, { userId: user.id, role: 'owner' })
const { access_token: token } = await admin('/api/v1/admin/tokens', { userId: user.id, workspaceId: ws.id })
for (const d of benchDocs())
  await call('POST', '/api/v1/knowledge', token, { title: d.title, source: 'text', content: d.text })
const queries = benchQueries()

const measure = async (from: number) => {
  const out: number[] = []
  for (let i = 0; i < QUERIES / ROUNDS; i++) {
    const t = performance.now()
    const found = await call('POST', '/api/v1/knowledge/search', token, {
      query: queries[(from + i) % queries.length],
      mode: 'hybrid',
      limit: 5,
      minScore: 0,
    })
    out.push(performance.now() - t)
    if (found.engines.rerank?.startsWith('unavailable')) throw new Error(found.engines.rerank)
  }
  return out
}
const setRerank = (enabled: boolean) =>
  call('PATCH', '/api/v1/knowledge/config', token, { search: { rerank: { enabled, candidates: 30 } } })

const off: number[] = []
const on: number[] = []
for (let round = 0; round < ROUNDS; round++) {
  // ABBA: the machine's drift weighs on both alike.
  for (const enabled of round % 2 === 0 ? [false, true] : [true, false]) {
    await setRerank(enabled)
    ;(enabled ? on : off).push(...(await measure(round * 50)))
  }
}
const row = (name: string, xs: number[]) =>
  `${name.padEnd(12)} p50 ${pct(xs, 50).toFixed(1)} ms  p95 ${pct(xs, 95).toFixed(1)} ms`
process.stdout.write(
  `rerank: hybrid search, limit 5, 30 candidates reranked, ${off.length} queries each, ` +
    `${benchDocs().length} entries\n` +
    `${row('off', off)}\n${row('on', on)}\n` +
    `ratio on/off p50 ${(pct(on, 50) / pct(off, 50)).toFixed(2)}  p95 ${(pct(on, 95) / pct(off, 95)).toFixed(2)}\n`,
)
await stop()
reranker.close()
