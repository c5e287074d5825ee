// `npm run eval [-- <set>]`: for each evaluation set (scripts/eval/sets.ts), ingests its documents
// through the API, runs its questions in text, vector and hybrid mode, and MiniSearch (an
// in-process BM25 library, default options, title and text) as the reference; reports nDCG@10,
// MRR@10 and Recall@10 per question kind, latency per mode, how often the served chunk holds the
// judged evidence, a reliability table of the scores, precision and recall at the defaults, and the
// vector leg's recall of distinct entries against an exact scan of every passage vector.
import MiniSearch from 'minisearch'
import type { Service } from '../../app/service'
import { mean, ndcgAt, percentile } from '../../queries/search'
import { exactScanner, recallOf } from './exactRecall'
import { type Doc, type EvalSet, type Question, SETS, loadDocs, loadQuestions } from './sets'
import { CHUNK, EMBEDDER, IN_FLIGHT, callerOf, openEvalWorkspace } from './workspace'

const K = 10
const ALL_MODES = ['text', 'vector', 'hybrid'] as const
/** EVAL_MODES: a comma list of the modes to run (a text-only run needs no model); unset, all three. */
const MODES = ALL_MODES.filter((m) => (process.env.EVAL_MODES ?? ALL_MODES.join(',')).split(',').includes(m))

interface Result {
  id: string
  score: number
  content: string
}

const relevant = (q: Question, id: string) => (q.judgments[id] ?? 0) >= 1
const metrics = (ranked: string[], judgments: Record<string, number>) => {
  const top = ranked.slice(0, K)
  const first = top.findIndex((id) => (judgments[id] ?? 0) > 0)
  const rel = Object.keys(judgments).filter((id) => judgments[id] > 0)
  return {
    ndcg: ndcgAt(ranked, judgments, K),
    mrr: first < 0 ? 0 : 1 / (first + 1),
    recall: rel.filter((id) => top.includes(id)).length / rel.length,
  }
}
const f = (x: number, d = 3) => x.toFixed(d)

interface Run {
  q: Question
  ranked: string[]
}
/** Kinds of questions reported, in this order, where a set has some. */
const KIND_ORDER = ['keyword', 'paraphrase', 'option', 'note', 'deep']
const kindsOf = (questions: Question[]) => ['all', ...KIND_ORDER.filter((k) => questions.some((q) => q.kind === k))]
/** Rows of the nDCG table; questions the documents do not answer (`none`) have no ranking to judge. */
const summarise = (system: string, runs: Run[]) =>
  kindsOf(runs.map((r) => r.q)).map((kind) => {
    const ms = runs
      .filter((r) => r.q.kind !== 'none' && (kind === 'all' || r.q.kind === kind))
      .map((r) => metrics(r.ranked, r.q.judgments))
    return {
      system,
      kind,
      ndcg: mean(ms.map((m) => m.ndcg)),
      mrr: mean(ms.map((m) => m.mrr)),
      recall: mean(ms.map((m) => m.recall)),
    }
  })

const evaluate = async (set: EvalSet, docs: Doc[], questions: Question[]) => {
  const { service, token, workspaceId, docOf, ingestSeconds, close } = await openEvalWorkspace(set, docs)
  const call = callerOf(service.url)
  const out: string[] = []
  const say = (line = '') => out.push(line)
  try {
    const search = async (body: object) => {
      const t = performance.now()
      const r = await call('POST', '/api/v1/knowledge/search', token, body)
      return {
        ms: performance.now() - t,
        mode: r.mode as string,
        fallback: r.fallback as string | undefined,
        results: (r.results as Result[]).map((x) => ({ ...x, id: docOf.get(x.id)! })),
      }
    }

    const rows = []
    const latency: Record<string, number[]> = {}
    const reliability: Record<string, Array<[number, number]>> = {}
    const evidence: Record<string, [number, number]> = {}
    const atDefaults: Record<string, { p5: number[]; r5: number[]; emptied: number; noneAnswered: number }> = {}
    /** The distinct documents of vector mode's top 10, per question. */
    const vectorTop = new Map<string, string[]>()
    for (const mode of MODES) {
      const runs: Run[] = []
      latency[mode] = []
      reliability[mode] = Array.from({ length: 10 }, () => [0, 0] as [number, number])
      evidence[mode] = [0, 0]
      atDefaults[mode] = { p5: [], r5: [], emptied: 0, noneAnswered: 0 }
      for (const q of questions) {
        const r = await search({ query: q.query, mode, limit: K, minScore: 0 })
        if (r.mode !== mode) throw new Error(`${mode} answered as ${r.mode}: ${r.fallback}`)
        latency[mode].push(r.ms)
        runs.push({ q, ranked: r.results.map((x) => x.id) })
        if (mode === 'vector') vectorTop.set(q.id, [...new Set(r.results.map((x) => x.id))].slice(0, K))
        for (const x of r.results) {
          const bucket = reliability[mode][Math.min(9, Math.floor(x.score * 10))]
          bucket[0]++
          if (relevant(q, x.id)) bucket[1]++
          // The chunk served for a document that answers (grade 2) should hold what answers it.
          if (q.judgments[x.id] === 2) {
            evidence[mode][0]++
            if (x.content.toLowerCase().includes(q.evidence.toLowerCase())) evidence[mode][1]++
          }
        }
        // At the endpoint's defaults (limit 5, minScore 0.5).
        const d = await search({ query: q.query, mode })
        const a = atDefaults[mode]
        if (q.kind === 'none') {
          if (d.results.length > 0) a.noneAnswered++
          continue
        }
        const rel = Object.keys(q.judgments).filter((id) => relevant(q, id))
        const hits = d.results.filter((x) => relevant(q, x.id)).length
        a.p5.push(d.results.length ? hits / d.results.length : 0)
        a.r5.push(hits / rel.length)
        if (d.results.length === 0 && r.results[0] && relevant(q, r.results[0].id)) a.emptied++
      }
      rows.push(...summarise(mode, runs))
    }
    const exact = vectorTop.size ? await exactRecall(service, workspaceId, docOf, questions, vectorTop) : []
    const mini = new MiniSearch<Doc>({ fields: ['title', 'text'], storeFields: ['id'] })
    mini.addAll(docs)
    rows.push(
      ...summarise(
        'MiniSearch (reference)',
        questions.map((q) => ({ q, ranked: mini.search(q.query).map((r) => String(r.id)) })),
      ),
    )

    const answerable = questions.filter((q) => q.kind !== 'none').length
    const chars = docs.reduce((n, d) => n + d.text.length, 0)
    say(
      `${docs.length} documents (${f(chars / 1e6, 2)} M characters), ${questions.length} questions ` +
        `(${questions.length - answerable} that the documents do not answer); embedder ${EMBEDDER}; chunks of ` +
        `${CHUNK ?? 'the default'} tokens`,
    )
    const rate = `${f(docs.length / ingestSeconds, 2)} documents/s, ${IN_FLIGHT} in flight`
    say(
      ingestSeconds
        ? `ingestion: ${f(ingestSeconds, 0)} s, ${rate}`
        : 'ingestion: kept from an earlier run (EVAL_DATA_DIR)',
    )
    say()
    say('| system | questions | nDCG@10 | MRR@10 | Recall@10 |\n|---|---|---:|---:|---:|')
    for (const kind of kindsOf(questions))
      for (const r of rows.filter((x) => x.kind === kind))
        say(`| ${r.system} | ${kind} | ${f(r.ndcg)} | ${f(r.mrr)} | ${f(r.recall)} |`)
    say()
    say(
      '| mode | p50 ms | p95 ms | served chunk holds the evidence | P@5 at defaults | R@5 at defaults | emptied with ' +
        'a relevant first result | unanswerable answered |\n|---|---:|---:|---:|---:|---:|---:|---:|',
    )
    for (const mode of MODES) {
      const a = atDefaults[mode]
      const none = questions.length - answerable
      say(
        `| ${mode} | ${f(percentile(latency[mode], 50), 1)} | ${f(percentile(latency[mode], 95), 1)} | ` +
          `${evidence[mode][1]}/${evidence[mode][0]} | ${f(mean(a.p5), 2)} | ${f(mean(a.r5), 2)} | ` +
          `${a.emptied}/${answerable} | ${none ? `${a.noneAnswered}/${none}` : '-'} |`,
      )
    }
    if (exact.length) {
      say()
      out.push(...exact)
    }
    say()
    say(
      'Reliability (top 10 of every question): results per score bucket, and the share judged relevant (grade 1 or ' +
        '2)\n',
    )
    say(`| score | ${MODES.join(' | ')} |\n|---|${MODES.map(() => '---:').join('|')}|`)
    for (let b = 9; b >= 0; b--) {
      say(
        `| ${f(b / 10, 1)}-${f((b + 1) / 10, 1)} | ${MODES.map((m) => {
          const [n, rel] = reliability[m][b]
          return n ? `${n}: ${f(rel / n, 2)}` : '-'
        }).join(' | ')} |`,
      )
    }
  } finally {
    await close()
  }
  return out.join('\n')
}

/**
 * The vector leg's recall@10 of distinct entries against an exact scan of every passage, per kind of
 * question: against the entries first by their best passage's cosine, and by the vector score itself.
 */
const exactRecall = async (
  service: Service,
  workspaceId: string,
  docOf: Map<string, string>,
  questions: Question[],
  vectorTop: Map<string, string[]>,
) => {
  const scan = await exactScanner(service, workspaceId)
  const rows: Array<{ kind: string; best: number; raw: number }> = []
  for (const q of questions) {
    const top = await scan.top(q.query, K)
    const found = vectorTop.get(q.id) ?? []
    const docs = (ids: string[]) => ids.map((id) => docOf.get(id) ?? id)
    rows.push({ kind: q.kind, best: recallOf(found, docs(top.best)), raw: recallOf(found, docs(top.raw)) })
  }
  // Here `all` is every question, those that nothing answers included: the index's recall needs no judgment.
  const kinds = [...kindsOf(questions), ...(questions.some((q) => q.kind === 'none') ? ['none'] : [])]
  const of = (kind: string) => rows.filter((r) => kind === 'all' || r.kind === kind)
  return [
    `Vector leg: recall@10 of distinct entries against an exact scan of all ${scan.passages} passage vectors ` +
      "(vector mode's top 10 entries, against the 10 entries first by an exact score)\n",
    `| exact score | ${kinds.join(' | ')} |\n|---|${kinds.map(() => '---:').join('|')}|`,
    `| best passage's cosine | ${kinds.map((k) => f(mean(of(k).map((r) => r.best)))).join(' | ')} |`,
    `| vector score (0.5 · best + top3) | ${kinds.map((k) => f(mean(of(k).map((r) => r.raw)))).join(' | ')} |`,
  ]
}

for (const set of SETS.filter((x) => !process.argv[2] || x.name === process.argv[2])) {
  const report = await evaluate(set, loadDocs(set), loadQuestions(set))
  process.stdout.write(`\n## ${set.name}: ${set.about}\n\n${report}\n`)
}
process.exit(0)
