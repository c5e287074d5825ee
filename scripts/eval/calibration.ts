// `tsx scripts/eval/calibration.ts <fit.json>[,<fit.json>...] [<check.json>...]`: fits each mode's calibration
// on the sets named first (comma-separated evidence files of scripts/eval/evidence.ts), a logistic regression of
// "judged relevant" on absolute evidence only (nothing about the other results of the search), and reports,
// per set, nDCG@10 in the fitted order, how the fitted chances track relevance, and what the floor of a
// whole question changes.
import { MODEL, mean, ndcgAt } from '../../queries/search'
import { type Data, type Q, load, textRaw, vectorLeg, vectorRawOf } from './fusion'

type Mode = 'text' | 'vector' | 'hybrid'
const MODES: Mode[] = ['text', 'vector', 'hybrid']
/** Results per question the fit sees: what a search serves, and some below it. */
const DEPTH = 20
/** L2 penalty on the weights (not the bias), as the earlier fits. */
const L2 = 0.1

/** A mode's features of a document: [raw, coverage] (vector: [raw, 0]), and the raw order of candidates. */
const candidates = (d: Data, q: Q, mode: Mode) => {
  const v = vectorLeg(d, q, false)
  const vraw = new Map([...v].map(([doc, e]) => [doc, vectorRawOf(e, 0)]))
  // The service's vector leg gathers at least 40 entries: its nearest 40 documents.
  const vtop = new Set(
    [...vraw]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 40)
      .map(([doc]) => doc),
  )
  const docs =
    mode === 'text' ? [...q.text.keys()] : mode === 'vector' ? [...vtop] : [...new Set([...q.text.keys(), ...vtop])]
  return docs.map((doc) => {
    const t = q.text.get(doc)
    const raw =
      mode === 'vector'
        ? (vraw.get(doc) ?? 0)
        : textRaw(t) + (mode === 'hybrid' && vtop.has(doc) ? MODEL.hybridVector * (vraw.get(doc) ?? 0) : 0)
    return { doc, raw, coverage: mode === 'vector' ? 0 : (t?.coverage ?? 0), relevant: (q.judgments[doc] ?? 0) > 0 }
  })
}
type Row = ReturnType<typeof candidates>[number]

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z))
/** [raw weight, coverage weight, bias] */
type Fit = [number, number, number]
const chance = (f: Fit, r: Row) => sigmoid(f[0] * r.raw + f[1] * r.coverage + f[2])

/** Newton's method on the penalised log-loss. */
const fit = (rows: Row[], withCoverage: boolean): Fit => {
  let w: Fit = [0, 0, 0]
  const x = (r: Row) => [r.raw, withCoverage ? r.coverage : 0, 1]
  for (let it = 0; it < 50; it++) {
    const g = [0, 0, 0]
    const h = [
      [0, 0, 0],
      [0, 0, 0],
      [0, 0, 0],
    ]
    for (const r of rows) {
      const xi = x(r)
      const p = chance(w, r)
      for (let a = 0; a < 3; a++) {
        g[a] += (p - (r.relevant ? 1 : 0)) * xi[a]
        for (let b = 0; b < 3; b++) h[a][b] += p * (1 - p) * xi[a] * xi[b]
      }
    }
    for (let a = 0; a < 2; a++) {
      g[a] += L2 * w[a]
      h[a][a] += L2
    }
    if (!withCoverage) h[1][1] += 1
    const step = solve(h, g)
    w = w.map((wi, i) => wi - step[i]) as Fit
    if (Math.hypot(...step) < 1e-9) break
  }
  return w
}
const solve = (a: number[][], b: number[]) => {
  const m = a.map((row, i) => [...row, b[i]])
  for (let i = 0; i < 3; i++) {
    const p = m[i][i]
    for (let j = i; j < 4; j++) m[i][j] /= p
    for (let k = 0; k < 3; k++)
      if (k !== i) {
        const f = m[k][i]
        for (let j = i; j < 4; j++) m[k][j] -= f * m[i][j]
      }
  }
  return m.map((row) => row[3])
}

const served = (d: Data, mode: Mode, order: (r: Row) => number) =>
  d.questions.map((q) => ({ q, rows: candidates(d, q, mode).sort((a, b) => order(b) - order(a)) }))

const [fitFiles, ...checkFiles] = process.argv.slice(2)
if (!fitFiles) throw new Error('usage: calibration.ts <fit.json>[,<fit.json>...] [<check.json>...]')
const fitting = fitFiles.split(',').map((f) => load(f, true))
const sets = [...fitting, ...checkFiles.map((f) => load(f, true))]
const fits = Object.fromEntries(
  MODES.map((mode) => {
    const rows = fitting.flatMap((d) => served(d, mode, (r) => r.raw).flatMap(({ rows }) => rows.slice(0, DEPTH)))
    return [mode, { raw: fit(rows, false), coverage: mode === 'vector' ? undefined : fit(rows, true) }]
  }),
) as Record<Mode, { raw: Fit; coverage?: Fit }>
for (const mode of MODES) process.stdout.write(`${mode}: ${JSON.stringify(fits[mode])}\n`)

const ndcg = (d: Data, mode: Mode, order: (r: Row) => number) =>
  mean(
    served(d, mode, order)
      .filter(({ q }) => q.kind !== 'none')
      .map(({ q, rows }) =>
        ndcgAt(
          rows.map((r) => r.doc),
          q.judgments,
        ),
      ),
  )
/** The served score: the raw fit's chance, at least even odds where a passage holds the whole question. */
const scoreOf = (mode: Mode, r: Row) => {
  const p = chance(fits[mode].raw, r)
  return mode !== 'vector' && r.coverage >= MODEL.whole ? Math.max(MODEL.wholeQuestion, p) : p
}
/** The order the service serves: by chance, the floor moving nothing. */
const byChance = (mode: Mode) => (r: Row) => chance(fits[mode].raw, r)
/** The order had the floor also reordered (tried and not kept: it cost postgres 0.013 nDCG@10). */
const byFloor = (mode: Mode) => (r: Row) => scoreOf(mode, r) + chance(fits[mode].raw, r) * 1e-6
const share = (rows: Row[]) => `${rows.filter((r) => r.relevant).length}/${rows.length}`
for (const d of sets) {
  process.stdout.write(`\n## ${d.set}\n\n`)
  process.stdout.write(
    '| mode | nDCG@10 | had the floor reordered | top 5 at ≥ 0.5 by chance | with the floor | lifted |\n',
  )
  process.stdout.write('|---|---:|---:|---:|---:|---:|\n')
  for (const mode of MODES) {
    const top = served(d, mode, byChance(mode)).flatMap(({ rows }) => rows.slice(0, 5))
    const p = byChance(mode)
    const cells = [
      ndcg(d, mode, p).toFixed(3),
      ndcg(d, mode, byFloor(mode)).toFixed(3),
      share(top.filter((r) => p(r) >= 0.5)),
      share(top.filter((r) => scoreOf(mode, r) >= 0.5)),
      share(top.filter((r) => scoreOf(mode, r) >= 0.5 && p(r) < 0.5)),
    ]
    process.stdout.write(`| ${mode} | ${cells.join(' | ')} |\n`)
  }
  process.stdout.write('\n| score as served | text | vector | hybrid |\n|---|---|---|---|\n')
  for (let b = 9; b >= 0; b--) {
    const cells = MODES.map((mode) => {
      const rows = served(d, mode, byChance(mode))
        .flatMap(({ rows }) => rows.slice(0, 10))
        .filter((r) => Math.min(9, Math.floor(scoreOf(mode, r) * 10)) === b)
      return rows.length ? `${rows.length}: ${(rows.filter((r) => r.relevant).length / rows.length).toFixed(2)}` : '-'
    })
    process.stdout.write(`| ${b / 10}-${(b + 1) / 10} | ${cells.join(' | ')} |\n`)
  }
}
