// `npm run bench -- scale`: process roles on the Postgres server and RabbitMQ. The same files are
// ingested through the API and the same hybrid searches run with one worker and one API process (the
// baseline, measured first and last in the same run and averaged), then with two workers, then with
// two API processes; each with one projector and one scheduler process. Reported as ratios.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createLogger } from '../../adapters/logger'
import { RabbitQueue } from '../../adapters/queue/rabbitmq'
import { freshPostgres } from '../../testkit/db'
import { apiClient, workspaceTokens } from './client'
import { runUploads } from './uploads'

const FILES = Number(process.env.BENCH_FILES ?? 60)
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 300)
const CLIENTS = 4
const EMBEDDER = process.env.BENCH_EMBEDDER ?? 'hashing'
const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672'
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const ADMIN = 'bench-admin-token-0123456789'
const PER_WORKSPACE = 20

const WORDS = (
  'river delta sediment basin erosion flood plain channel meander levee tide estuary marsh silt gravel ' +
  'current discharge gauge catchment aquifer spring'
).split(' ')
let seed = 11
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
const sentence = () => {
  const s = Array.from({ length: 6 + Math.floor(rand() * 10) }, () => WORDS[Math.floor(rand() * WORDS.length)])
  return `${s.join(' ')}.`
}
const paragraph = () => Array.from({ length: 15 }, sentence).join(' ')
/** Markdown files of about 3,000 words each. */
const files = Array.from({ length: FILES }, (_, i) => ({
  name: `notes-${i}.md`,
  bytes: new Uint8Array(Buffer.from(`# Notes ${i}\n\n${Array.from({ length: 20 }, paragraph).join('\n\n')}\n`)),
}))

interface Topology {
  workers: number
  apis: number
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]
}

const startProcess = async (role: string, port: number, env: Record<string, string>) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
    env: { ...process.env, ...env, KB_ROLE: role, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let err = ''
  child.stderr?.on('data', (d) => (err += d))
  const base = `http://127.0.0.1:${port}`
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base }
    } catch {}
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`${role} did not start: ${err}`)
}

const measure = async ({ workers, apis }: Topology) => {
  const db = await freshPostgres(SERVER_URL, 5)
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-scale-'))
  const queue = `kb.bench.${randomUUID()}`
  const env = {
    DATABASE_URL: db.url!,
    AMQP_URL,
    AMQP_QUEUE: queue,
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: ADMIN,
    EMBEDDER,
  }
  const port = 46000 + Math.floor(Math.random() * 1000)
  const children: ChildProcess[] = []
  const run = async (role: string, n: number) => {
    const p = await startProcess(role, port + n, env)
    children.push(p.child)
    return p.base
  }
  try {
    await run('projector', 0)
    await run('scheduler', 1)
    await Promise.all(Array.from({ length: workers }, (_, i) => run('worker', 10 + i)))
    const bases = await Promise.all(Array.from({ length: apis }, (_, i) => run('api', 20 + i)))
    const tokens = await workspaceTokens(apiClient(bases[0]), ADMIN, Math.ceil(FILES / PER_WORKSPACE))
    // Each API process takes its share of the files (whole workspaces), uploaded at once.
    const started = performance.now()
    const shares = bases.map((url, a) => ({
      url,
      files: files
        .map((f, i) => ({ ...f, token: tokens[Math.floor(i / PER_WORKSPACE)] }))
        .filter((_, i) => Math.floor(i / PER_WORKSPACE) % bases.length === a),
      pollMs: 250,
    }))
    const done = await Promise.all(shares.filter((s) => s.files.length > 0).map(runUploads))
    const seconds = (performance.now() - started) / 1000
    const chunks = done.reduce((a, d) => a + d.chunks, 0)
    // Searches: CLIENTS at once, spread over the API processes.
    const latencies: number[] = []
    let next = 0
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        while (next < SEARCHES) {
          const i = next++
          const t = performance.now()
          const res = await fetch(`${bases[(i + c) % bases.length]}/api/v1/knowledge/search`, {
            method: 'POST',
            headers: { authorization: `Bearer ${tokens[i % tokens.length]}`, 'content-type': 'application/json' },
            body: JSON.stringify({ query: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}` }),
          })
          if (!res.ok) throw new Error(await res.text())
          await res.arrayBuffer()
          latencies.push(performance.now() - t)
        }
      }),
    )
    return { filesPerMin: (FILES / seconds) * 60, chunks, p50: pct(latencies, 50), p95: pct(latencies, 95) }
  } finally {
    for (const c of children) c.kill('SIGKILL')
    await new Promise((r) => setTimeout(r, 500))
    await db.close()
    const cleanup = await RabbitQueue.connect(AMQP_URL, createLogger('silent'), queue)
    await cleanup.deleteQueues()
    await cleanup.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const f = (x: number, d = 1) => x.toFixed(d)
const first = await measure({ workers: 1, apis: 1 })
const twoWorkers = await measure({ workers: 2, apis: 1 })
const twoApis = await measure({ workers: 1, apis: 2 })
const last = await measure({ workers: 1, apis: 1 })
const base = {
  filesPerMin: (first.filesPerMin + last.filesPerMin) / 2,
  p50: (first.p50 + last.p50) / 2,
  p95: (first.p95 + last.p95) / 2,
}
const row = (name: string, r: { filesPerMin: number; p50: number; p95: number }) =>
  `| ${name} | ${f(r.filesPerMin)} | ${f(r.filesPerMin / base.filesPerMin, 2)} | ${f(r.p50)} / ${f(r.p95)} | ` +
  `${f(r.p50 / base.p50, 2)} / ${f(r.p95 / base.p95, 2)} |`
process.stdout.write(
  [
    '',
    `${FILES} Markdown files of about 3,000 words, ${SEARCHES} hybrid searches by ${CLIENTS} clients; ` +
      `EMBEDDER=${EMBEDDER}; PostgreSQL server and RabbitMQ; one projector and one scheduler process in each row`,
    '',
    '| processes | files/min | ratio | search p50 / p95 ms | ratio p50 / p95 |',
    '|---|---:|---:|---:|---:|',
    row('1 worker, 1 api (baseline, first and last)', base),
    row('2 workers, 1 api', twoWorkers),
    row('1 worker, 2 api', twoApis),
    '',
  ].join('\n'),
)
