// `npm run bench -- ladder`: the size ladder. One data directory grown through the API from rung to rung
// (BENCH_LADDER passages, default 10000,100000,1000000), the service run as users run it (a child process,
// hashing embedder); at each rung search p50/p95 per mode through the API, the process's RSS and peak, the
// disk, and the vector leg's recall@10 of distinct entries against an exact scan of every passage vector.
// BENCH_DATABASE_URL runs it on a fresh database of that Postgres server (no pgvector there: vectors are
// real[], and the vector leg itself is an exact scan).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { type Database, openPglite, openPostgres } from '../../adapters/db'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { passagesOf } from '../../ingestion/passages'
import { vectorRaw } from '../../queries/search'
import { freshPostgres } from '../../testkit/db'
import { SETS, loadDocs } from '../eval/sets'
import { apiClient } from './client'
import { benchQueries } from './corpus'

const RUNGS = (process.env.BENCH_LADDER ?? '10000,100000,1000000').split(',').map(Number)
const SERVER = process.env.BENCH_DATABASE_URL
const QUESTIONS = Number(process.env.BENCH_QUERIES ?? 50)
const WRITERS = 4
const ADMIN = 'bench-admin-token-0123456789'
const MODES = ['text', 'vector', 'hybrid'] as const
const embedder = hashingEmbedder()
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]
const say = (line: string) => process.stderr.write(`${line}\n`)

// The corpus: sentences drawn by a seeded generator from the words of the python evaluation set (as often
// as they occur there). 60 % one-line notes, 37 % entries of 1,500-4,000 words, 3 % of 200-400 kB.
const python = SETS.find((s) => s.name === 'python')!
const vocabulary = loadDocs(python).flatMap((d) => d.text.match(/[A-Za-z][A-Za-z_]+/g) ?? [])
let seed = 46
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31
  return seed / 2 ** 31
}
const word = () => vocabulary[Math.floor(rand() * vocabulary.length)]
const sentence = () => {
  const s = Array.from({ length: 8 + Math.floor(rand() * 13) }, word).join(' ')
  return `${s[0].toUpperCase()}${s.slice(1)}.`
}
const textOf = (chars: number) => {
  const paragraphs: string[] = []
  for (let n = 0; n < chars; n += paragraphs[paragraphs.length - 1].length + 2)
    paragraphs.push(Array.from({ length: 3 + Math.floor(rand() * 6) }, sentence).join(' '))
  return paragraphs.join('\n\n')
}
const entry = (i: number) => {
  const r = rand()
  const [kind, content] =
    r < 0.6
      ? ['Note', sentence()]
      : r < 0.97
        ? ['Guide', textOf((1500 + rand() * 2500) * 6.5)]
        : ['Manual', textOf(200_000 + rand() * 200_000)]
  return { title: `${kind} ${i}: ${word()} ${word()} ${word()}`, source: 'text', content }
}
// The queries: the python set's questions, and single words of the vocabulary.
const words = [...new Set(vocabulary.filter((w) => w.length >= 6))]
const queries = [
  ...benchQueries().slice(0, QUESTIONS),
  ...Array.from({ length: Math.ceil(QUESTIONS / 5) }, (_, i) => words[(i * 7919) % words.length]),
]

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })

/** The service as `npm start` runs it, until it answers /health. */
const startService = async (env: Record<string, string>) => {
  const port = await freePort()
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', EMBEDDER: 'hashing' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr?.on('data', (d) => (err = (err + d).slice(-4000)))
  const base = `http://127.0.0.1:${port}`
  const up = () =>
    fetch(`${base}/health`)
      .then((r) => r.ok)
      .catch(() => false)
  for (let i = 0; i < 6000 && child.exitCode === null; i++) {
    if (await up()) return { child, base, log: () => err }
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`the service did not start: ${err}`)
}
const stopService = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    child.on('exit', () => resolve())
    child.kill('SIGTERM')
  })
const memory = (pid: number) => {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))![1]) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

/** Recall@10 of distinct entries: vector mode's entries against an exact scan, read in pages, of every passage. */
const exactRecall = async (db: Database, workspaceId: string, found: string[][]) => {
  const unit = (v: number[]) => {
    const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
    return Float32Array.from(v, (x) => x / n)
  }
  const qs = (await embedder.embed(queries)).map(unit)
  const perQuery = qs.map(() => new Map<string, number[]>())
  let last = ''
  let passages = 0
  for (;;) {
    const { rows } = await db.pool.query<{ id: string; entry_id: string; v: string }>(
      `SELECT id, entry_id, embedding::text AS v FROM kb_passages WHERE workspace_id = $1 AND model = $2
       AND embedding IS NOT NULL AND is_enabled AND id > $3 ORDER BY id LIMIT 2000`,
      [workspaceId, embedder.model, last],
    )
    if (rows.length === 0) break
    last = rows[rows.length - 1].id
    passages += rows.length
    for (const r of rows) {
      // A vector reads as '[0.1,...]' (pgvector) or '{0.1,...}' (real[]).
      const v = unit(r.v.slice(1, -1).split(',').map(Number))
      qs.forEach((q, i) => {
        let dot = 0
        for (let d = 0; d < q.length; d++) dot += q[d] * v[d]
        const s = Math.min(1, Math.max(0, dot))
        const top = perQuery[i].get(r.entry_id) ?? []
        if (top.length < 3 || s > top[2]) perQuery[i].set(r.entry_id, [...top, s].sort((a, b) => b - a).slice(0, 3))
      })
    }
  }
  const recall = (order: (top: number[]) => number) =>
    perQuery.reduce((sum, byEntry, i) => {
      const exact = [...byEntry]
        .map(([id, top]) => ({ id, s: order(top) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
      return sum + (exact.length ? exact.filter((e) => found[i].includes(e.id)).length / exact.length : 1)
    }, 0) / queries.length
  return {
    passages,
    best: recall((top) => top[0]),
    raw: recall((top) => vectorRaw({ best: top[0], top3: top.reduce((s, x) => s + x, 0) / top.length })),
  }
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-ladder-'))
const server = SERVER ? await freshPostgres(SERVER, 2) : undefined
const env = { DATA_DIR: dataDir, KB_ADMIN_TOKEN: ADMIN, ...(server ? { DATABASE_URL: server.url! } : {}) }
const rows: string[] = []
const resources: string[] = []
const p95At: Record<string, number> = {}
let proc: Awaited<ReturnType<typeof startService>> | undefined
try {
  proc = await startService(env)
  let call = apiClient(proc.base)
  const user = await call('POST', '/api/v1/admin/users', ADMIN, { email: 'ladder@example.com', name: 'Ladder' })
  const ws = await call('POST', '/api/v1/admin/workspaces', ADMIN, { name: 'Ladder' })
  await call('POST', `/api/v1/admin/workspaces/${ws.id}/members`, ADMIN, { userId: user.id, role: 'owner' })
  const tokenFor = async () =>
    (await call('POST', '/api/v1/admin/tokens', ADMIN, { userId: user.id, workspaceId: ws.id })).access_token
  let token = await tokenFor()
  await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 1_000_000 })
  // The passages the service will index, counted as it counts them (one per 40 words of sentences).
  let passages = 0
  let entries = 0
  for (const [r, rung] of RUNGS.entries()) {
    const t0 = performance.now()
    const from = passages
    token = await tokenFor()
    const progress = setInterval(() => {
      const rate = (passages - from) / ((performance.now() - t0) / 1000)
      const eta = `ETA ${Math.round((rung - passages) / rate)} s`
      say(`rung ${rung}: ${passages} passages, ${entries} entries, ${rate.toFixed(1)} passages/s, ${eta}`)
    }, 15_000)
    await Promise.all(
      Array.from({ length: WRITERS }, async () => {
        while (passages < rung) {
          const body = entry(entries++)
          passages += passagesOf(body.content, embedder.passageWords).length
          // A connection reset is tried again (up to twice); an answer of failure stops the bench.
          for (let attempt = 0; ; attempt++) {
            const failed = await call('POST', '/api/v1/knowledge', token, body).then(() => undefined, String)
            if (!failed) break
            if (attempt === 2 || failed.startsWith('Error: {')) throw new Error(`${failed}\n${proc?.log()}`)
          }
        }
      }),
    )
    clearInterval(progress)
    const buildSeconds = (performance.now() - t0) / 1000
    say(`rung ${rung}: built in ${Math.round(buildSeconds)} s; searching`)
    token = await tokenFor()
    const search = async (mode: string, query: string) => {
      const t = performance.now()
      const data = await call('POST', '/api/v1/knowledge/search', token, { query, mode, limit: 10, minScore: 0 })
      return { ms: performance.now() - t, ids: (data.results as Array<{ id: string }>).map((x) => x.id) }
    }
    for (const mode of MODES) for (const q of queries.slice(0, 20)) await search(mode, q)
    const found: string[][] = []
    for (const mode of MODES) {
      const ms: number[] = []
      for (const q of queries) {
        const s = await search(mode, q)
        ms.push(s.ms)
        if (mode === 'vector') found.push([...new Set(s.ids)])
      }
      p95At[mode] ??= pct(ms, 95)
      rows.push(
        `| ${rung.toLocaleString('en-US')} | ${mode} | ${pct(ms, 50).toFixed(1)} | ${pct(ms, 95).toFixed(1)} | ` +
          `${(pct(ms, 95) / p95At[mode]).toFixed(2)} |`,
      )
      say(rows[rows.length - 1])
    }
    const { rss, peak } = memory(proc.child.pid!)
    // The exact scan reads the database beside the service on a server; PGlite allows one process, so
    // there the service stops for it and starts again for the next rung.
    let db: Database
    if (server) db = await openPostgres(server.url!, 1)
    else {
      await stopService(proc.child)
      db = await openPglite(path.join(dataDir, 'pg'))
    }
    const exact = await exactRecall(db, ws.id, found)
    const disk = server
      ? Number((await db.pool.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n)
      : Number(execFileSync('du', ['-sb', dataDir]).toString().split('\t')[0])
    await db.close()
    const mb = (n: number) => (n / 2 ** 20).toFixed(0)
    resources.push(
      `| ${rung.toLocaleString('en-US')} | ${exact.passages.toLocaleString('en-US')} | ${entries} | ` +
        `${Math.round(buildSeconds)} (${((passages - from) / buildSeconds).toFixed(1)}/s) | ${mb(rss)} | ` +
        `${mb(peak)} | ${mb(disk)} | ${Math.round(disk / exact.passages).toLocaleString('en-US')} | ` +
        `${exact.best.toFixed(3)} | ${exact.raw.toFixed(3)} |`,
    )
    say(resources[resources.length - 1])
    if (!server && r < RUNGS.length - 1) {
      proc = await startService(env)
      call = apiClient(proc.base)
      token = await tokenFor()
    }
  }
} finally {
  if (proc && proc.child.exitCode === null) await stopService(proc.child)
  await server?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
}
const where = server ? 'PostgreSQL server (no pgvector: vectors are real[], the vector leg is an exact scan)' : 'PGlite'
process.stdout.write(
  `\n${where}, hashing embedder; ${queries.length} queries a mode, one client, limit 10, minScore 0, after a ` +
    'warm-up\n\n| passages | mode | p50 ms | p95 ms | p95 / first rung |\n|---:|---|---:|---:|---:|\n' +
    `${rows.join('\n')}\n\n| rung | passages | entries | build s (passages/s) | RSS MB | peak RSS MB | disk MB | ` +
    'bytes/passage | recall@10 best passage | recall@10 vector order |\n' +
    `${'|---:'.repeat(10)}|\n` +
    `${resources.join('\n')}\n`,
)
process.exit(0)
