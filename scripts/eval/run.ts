// `npm run eval [-- <set>]`: for each evaluation set (scripts/eval/sets.ts), ingests its documents
// through the API, runs its questions in text, vector and hybrid mode, and MiniSearch (an
// in-process BM25 library) on the same documents as the reference; reports nDCG@10, MRR@10 and
// Recall@10 overall and per question kind.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import MiniSearch from 'minisearch'
import { createLogger } from '../../adapters/logger'
import { loadConfig } from '../../api/config'
import { startService } from '../../api/service'
import { type Doc, type Question, SETS, loadDocs, loadQuestions } from './sets'

const EMBEDDER = process.env.EVAL_EMBEDDER ?? 'local'
/** EVAL_CHUNK_TOKENS: chunk size for ingestion; unset, the service's default chunking. */
const CHUNK = process.env.EVAL_CHUNK_TOKENS ? Number(process.env.EVAL_CHUNK_TOKENS) : undefined
const ADMIN = 'eval-admin-token-0123456789'
const K = 10


const gain = (g: number) => 2 ** g - 1
const metrics = (ranked: string[], judgments: Record<string, number>) => {
  const top = ranked.slice(0, K)
  const dcg = top.reduce((s, id, i) => s + gain(judgments[id] ?? 0) / Math.log2(i + 2), 0)
  const ideal = Object.values(judgments).sort((a, b) => b - a).slice(0, K).reduce((s, g, i) => s + gain(g) / Math.log2(i + 2), 0)
  const first = top.findIndex((id) => (judgments[id] ?? 0) > 0)
  const relevant = Object.keys(judgments).filter((id) => judgments[id] > 0)
  return { ndcg: ideal ? dcg / ideal : 0, mrr: first < 0 ? 0 : 1 / (first + 1), recall: relevant.filter((id) => top.includes(id)).length / relevant.length }
}

type Row = { system: string; kind: string; ndcg: number; mrr: number; recall: number }
const summarise = (system: string, runs: { q: Question; ranked: string[] }[]): Row[] => {
  const groups = new Map<string, ReturnType<typeof metrics>[]>()
  for (const { q, ranked } of runs) {
    const m = metrics(ranked, q.judgments)
    for (const kind of ['all', q.kind]) groups.set(kind, [...(groups.get(kind) ?? []), m])
  }
  return [...groups].map(([kind, ms]) => ({
    system,
    kind,
    ndcg: ms.reduce((s, m) => s + m.ndcg, 0) / ms.length,
    mrr: ms.reduce((s, m) => s + m.mrr, 0) / ms.length,
    recall: ms.reduce((s, m) => s + m.recall, 0) / ms.length,
  }))
}

const evaluate = async (docs: Doc[], questions: Question[]) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-eval-'))
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, KB_ADMIN_TOKEN: ADMIN, EMBEDDER, LOG_LEVEL: 'silent' })
  if (E.isLeft(config)) throw new Error(config.left)
  const service = await startService(config.right, createLogger('silent'))
  const call = async (method: string, p: string, token: string, body?: unknown) => {
    const res = await fetch(service.url + p, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
    const json = (await res.json()) as { success: boolean; data: any }
    if (!json.success) throw new Error(`${p}: ${JSON.stringify(json)}`)
    return json.data
  }
  try {
    const user = await call('POST', '/api/v1/admin/users', ADMIN, { email: 'eval@example.com', name: 'Eval' })
    const ws = await call('POST', '/api/v1/admin/workspaces', ADMIN, { name: 'Eval' })
    await call('POST', `/api/v1/admin/workspaces/${ws.id}/members`, ADMIN, { userId: user.id, role: 'owner' })
    const { access_token: token } = await call('POST', '/api/v1/admin/tokens', ADMIN, { userId: user.id, workspaceId: ws.id })
    await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 100_000 })
    const docOf = new Map<string, string>()
    const started = Date.now()
    for (const [i, d] of docs.entries()) {
      const e = await call('POST', '/api/v1/knowledge', token, { title: d.title, source: 'document', content: d.text, ...(CHUNK ? { chunkingOptions: { chunkSizeTokens: CHUNK, overlapTokens: Math.round(CHUNK / 6) } } : {}) })
      docOf.set(e.id, d.id)
      if ((i + 1) % 50 === 0) process.stderr.write(`ingested ${i + 1}/${docs.length} (${Math.round((Date.now() - started) / 1000)} s)\n`)
    }
    const rows: Row[] = []
    for (const mode of ['text', 'vector', 'hybrid']) {
      const runs = []
      for (const q of questions) {
        const r = await call('POST', '/api/v1/knowledge/search', token, { query: q.query, mode, limit: K, minScore: 0 })
        if (r.mode !== mode) throw new Error(`${mode} answered as ${r.mode}: ${r.fallback}`)
        runs.push({ q, ranked: r.results.map((x: { id: string }) => docOf.get(x.id)!) })
      }
      rows.push(...summarise(mode, runs))
    }
    const mini = new MiniSearch<Doc>({ fields: ['title', 'text'], storeFields: ['id'] })
    mini.addAll(docs)
    rows.push(...summarise('MiniSearch (reference)', questions.map((q) => ({ q, ranked: mini.search(q.query).map((r) => String(r.id)) }))))

    const f = (x: number) => x.toFixed(3)
    process.stdout.write(`\n${docs.length} documents, ${questions.length} questions; embedder ${EMBEDDER}; chunks of ${CHUNK ?? 'the default'} tokens\n\n`)
    process.stdout.write('| system | questions | nDCG@10 | MRR@10 | Recall@10 |\n|---|---|---:|---:|---:|\n')
    for (const kind of ['all', 'keyword', 'paraphrase', 'option']) {
      for (const r of rows.filter((x) => x.kind === kind)) process.stdout.write(`| ${r.system} | ${kind} | ${f(r.ndcg)} | ${f(r.mrr)} | ${f(r.recall)} |\n`)
    }
  } finally {
    await service.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

for (const set of SETS.filter((x) => !process.argv[2] || x.name === process.argv[2])) {
  process.stdout.write(`\n## ${set.name}: ${set.about}\n`)
  await evaluate(loadDocs(set), loadQuestions(set))
}
process.exit(0)
