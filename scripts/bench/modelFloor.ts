// `npm run bench -- model-floor`: the local model alone on reference pages' passages, 1 to N threads
// (N: BENCH_MAX_WORKERS, default one per core plus one), speed-up against one thread in the same run.
import { defaultEmbedWorkers } from '../../adapters/embedders/local'
import { loadDocs } from '../eval/sets'
import { modelFloor, passagesOf, postgres } from './ingestReference'

const DOCS = Number(process.env.BENCH_LOCAL_DOCS ?? 60)
const MAX = Number(process.env.BENCH_MAX_WORKERS ?? defaultEmbedWorkers() + 1)

const docs = loadDocs(postgres).slice(0, DOCS)
const passages = passagesOf(docs, 40)
const rows: { workers: number; perSecond: number }[] = []
for (let workers = 1; workers <= MAX; workers++)
  rows.push({ workers, perSecond: docs.length / (await modelFloor(passages, workers)) })
console.log(`\nThe local model alone, ${docs.length} reference pages, 4 in flight, ${defaultEmbedWorkers()} cores\n`)
console.log('| threads | pages/s | speed-up |\n|---:|---:|---:|')
for (const r of rows)
  console.log(`| ${r.workers} | ${r.perSecond.toFixed(3)} | ${(r.perSecond / rows[0].perSecond).toFixed(2)} |`)
process.exit(0)
