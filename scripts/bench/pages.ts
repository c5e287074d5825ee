// `npm run bench -- pages`: page_write versions per second (one page; 100 pages) with 8 concurrent
// agents through the HTTP API, as a ratio to the event store's raw append rate with the same
// concurrency; page_search p50 as a ratio to entry search p50 over a corpus of the same size.
import { randomUUID } from 'node:crypto'
import { benchDocs, benchQueries } from './corpus'
import { BENCH_ADMIN, benchService, pct } from './service'

const WRITES = Number(process.env.BENCH_WRITES ?? 400)
const AGENTS = 8
const QUERIES = Number(process.env.BENCH_QUERIES ?? 100)
const docs = benchDocs().slice(0, 100)
const queries = benchQueries()
/** Runs `op` `total` times from AGENTS concurrent loops; answers operations per second and latencies. */
const run = async (total: number, op: (i: number) => Promise<unknown>) => {
  const latencies: number[] = []
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: AGENTS }, async () => {
      while (next < total) {
        const i = next++
        const t = performance.now()
        await op(i)
        latencies.push(performance.now() - t)
      }
    }),
  )
  return { perSecond: total / ((performance.now() - t0) / 1000), latencies }
}

const { service, stop } = await benchService('pages', process.env.EMBEDDER ?? 'hashing')
const post = async (p: string, headers: Record<string, string>, body: unknown) => {
  const res = await fetch(service.url + p, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = (await res.json()) as { success: boolean; data: any }
  if (!json.success) throw new Error(`${p}: ${JSON.stringify(json)}`)
  return json.data
}
try {
  const admin = { authorization: `Bearer ${BENCH_ADMIN}` }
  const user = await post('/api/v1/admin/users', admin, { email: 'bench@example.com', name: 'Bench' })
  const ws = await post('/api/v1/admin/workspaces', admin, { name: 'Bench' })
  await post(`/api/v1/admin/workspaces/${ws.id}/members`, admin, { userId: user.id, role: 'owner' })
  const bearer = {
    authorization:
      `Bearer ` +
      `${(await post('/api/v1/admin/tokens', admin, { userId: user.id, workspaceId: ws.id })).access_token}`,
  }
  const agent = {
    'x-api-key': (await post('/api/v1/admin/api-keys', admin, { workspaceId: ws.id, name: 'bench-agent' })).api_key,
  }
  const line = (i: number) => `Note ${i}: ${docs[i % docs.length].text.slice(0, 200)}`
  const metadata = {
    actor: { kind: 'system' as const, process: 'bench' },
    correlationId: 'bench',
    causationId: null,
    at: new Date().toISOString(),
  }

  // Baselines: raw appends of events of about a version's size, to one stream and to 100 streams.
  const one = `bench-${randomUUID()}`
  const rawOne = await run(WRITES, (i) =>
    service.deps.store.append(
      one,
      [{ id: randomUUID(), type: 'BenchAppended', data: { line: line(i) }, metadata }],
      'any',
    ),
  )
  const streams = Array.from({ length: 100 }, () => `bench-${randomUUID()}`)
  const rawMany = await run(WRITES, (i) =>
    service.deps.store.append(
      streams[i % 100],
      [{ id: randomUUID(), type: 'BenchAppended', data: { line: line(i) }, metadata }],
      'any',
    ),
  )

  const write = (args: object) => post('/api/v1/tools/native:page_write/execute', agent, { arguments: args })
  const onePage = await run(WRITES, (i) => write({ title: 'Shared log', mode: 'append', content: line(i) }))
  const manyPages = await run(WRITES, (i) =>
    write({ title: `Page ${i % 100}`, mode: 'replace', content: line(i) }).catch(() =>
      write({ title: `Page ${i % 100}`, mode: 'append', content: line(i) }),
    ),
  )

  // Search: the 100 pages beside 100 entries of the same texts.
  for (let i = 0; i < docs.length; i++) {
    await write({ title: docs[i].title.slice(0, 500), mode: 'append', content: docs[i].text.slice(0, 4000) })
    await post('/api/v1/knowledge', bearer, {
      title: docs[i].title.slice(0, 500),
      source: 'text',
      content: docs[i].text.slice(0, 4000),
    })
  }
  const pageSearch = await run(QUERIES, (i) =>
    post('/api/v1/tools/native:page_search/execute', agent, {
      arguments: { query: queries[i % queries.length], mode: 'hybrid', limit: 10, minScore: 0 },
    }),
  )
  const entrySearch = await run(QUERIES, (i) =>
    post('/api/v1/knowledge/search', bearer, {
      query: queries[i % queries.length],
      mode: 'hybrid',
      limit: 10,
      minScore: 0,
    }),
  )

  const f = (n: number) => n.toFixed(1)
  const row = (cells: string[]) => `| ${cells.join(' | ')} |`
  const p50s = [pct(pageSearch.latencies, 50), pct(entrySearch.latencies, 50)]
  process.stdout.write(
    [
      '',
      row([`measure (${AGENTS} concurrent agents, ${WRITES} writes)`, 'API', 'baseline', 'ratio']),
      '|---|---:|---:|---:|',
      row([
        'page_write, one page (versions/s)',
        f(onePage.perSecond),
        `raw append, one stream ${f(rawOne.perSecond)}`,
        (onePage.perSecond / rawOne.perSecond).toFixed(3),
      ]),
      row([
        'page_write, 100 pages (versions/s)',
        f(manyPages.perSecond),
        `raw append, 100 streams ${f(rawMany.perSecond)}`,
        (manyPages.perSecond / rawMany.perSecond).toFixed(3),
      ]),
      row([
        'page_search hybrid p50 / p95 (ms)',
        `${f(p50s[0])} / ${f(pct(pageSearch.latencies, 95))}`,
        `entry search ${f(p50s[1])} / ${f(pct(entrySearch.latencies, 95))}`,
        (p50s[0] / p50s[1]).toFixed(2),
      ]),
      '',
    ].join('\n'),
  )
} finally {
  await stop()
}
process.exit(0)
