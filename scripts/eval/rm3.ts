// Two more kinds of variant for scripts/eval/variants.ts: RM3 (pseudo-relevance feedback) and a hybrid
// chance raised to the vector leg's own.
import { MODEL, calibrate, mean } from '../../queries/search'
import { type Data, type Q, type Variant, byScore, textRaw, vectorLeg, vectorRawOf } from './fusion'
import { SETS, loadDocs } from './sets'

// RM3 (pseudo-relevance feedback) over the documents' text: a trial, tokenised simply (lowercase words of
// three letters or more, a short stop list), BM25 of the expansion terms added to the text leg's evidence.
const STOP = new Set(
  [
    'the and for are but not you all any can had her was one our out has have this that with from they will',
    'would there their what about which when make like time just know take into year your some could them than',
    'then look only come over also back after use two how its these want way well because give most',
  ]
    .join(' ')
    .split(' '),
)
const tokens = (text: string) => (text.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => !STOP.has(w))
const corpora = new Map<
  string,
  { tf: Map<string, Map<string, number>>; len: Map<string, number>; df: Map<string, number>; avg: number }
>()
const corpusOf = (set: string) => {
  if (!corpora.has(set)) {
    const docs = loadDocs(SETS.find((x) => x.name === set)!)
    const tf = new Map<string, Map<string, number>>()
    const len = new Map<string, number>()
    const df = new Map<string, number>()
    for (const d of docs) {
      const m = new Map<string, number>()
      const ws = tokens(`${d.title} ${d.text}`)
      for (const w of ws) m.set(w, (m.get(w) ?? 0) + 1)
      for (const w of m.keys()) df.set(w, (df.get(w) ?? 0) + 1)
      tf.set(d.id, m)
      len.set(d.id, ws.length)
    }
    corpora.set(set, { tf, len, df, avg: mean([...len.values()]) })
  }
  return corpora.get(set)!
}
const rm3 = (d: Data, q: Q, lambda: number, feedback = 5, terms = 10) => {
  const c = corpusOf(d.set)
  const n = c.len.size
  const traw = new Map([...q.text].map(([doc, e]) => [doc, textRaw(e)]))
  const top = byScore(traw).slice(0, feedback)
  const total = top.reduce((s, doc) => s + traw.get(doc)!, 0) || 1
  const asked = new Set(tokens(q.query))
  const pw = new Map<string, number>()
  for (const doc of top)
    for (const [w, f] of c.tf.get(doc) ?? [])
      if (!asked.has(w)) pw.set(w, (pw.get(w) ?? 0) + ((traw.get(doc)! / total) * f) / c.len.get(doc)!)
  const expansion = [...pw].sort((a, b) => b[1] - a[1]).slice(0, terms)
  const bm = (doc: string) =>
    expansion.reduce((s, [w, p]) => {
      const f = c.tf.get(doc)?.get(w) ?? 0
      if (!f) return s
      const idf = Math.log(1 + (n - c.df.get(w)! + 0.5) / (c.df.get(w)! + 0.5))
      return s + (p * idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * c.len.get(doc)!) / c.avg))
    }, 0)
  const exp = new Map([...c.tf.keys()].map((doc) => [doc, bm(doc)]))
  const max = Math.max(...exp.values()) || 1
  const candidates = new Set([...traw.keys(), ...byScore(exp).slice(0, 20)])
  return new Map([...candidates].map((doc) => [doc, (traw.get(doc) ?? 0) + (lambda * exp.get(doc)!) / max]))
}
export const rm3Text = (lambda: number): Variant => ({
  name: `text + RM3 λ ${lambda}`,
  rank: (d, q) => byScore(rm3(d, q, lambda)),
})
export const rm3Hybrid = (lambda: number): Variant => ({
  name: `hybrid (now) + RM3 λ ${lambda}`,
  rank: (d, q) => {
    const t = rm3(d, q, lambda)
    const v = vectorLeg(d, q, false)
    const docs = new Set([...t.keys(), ...v.keys()])
    const w = MODEL.hybridVector
    return byScore(
      new Map([...docs].map((doc) => [doc, (t.get(doc) ?? 0) + w * (v.has(doc) ? vectorRawOf(v.get(doc)!, 0) : 0)])),
    )
  },
})

/** Calibrated chances of raw scores. */
const chances = (raws: Map<string, number>, c: (typeof MODEL.calibration)['text']) =>
  new Map([...raws].map(([doc, raw]) => [doc, calibrate(raw, c)]))
/** Hybrid whose served chance of a result is at least the vector leg's own (where that clears `bar`). */
export const atLeastVector = (bar: number): Variant => ({
  name: `hybrid, chance at least the vector leg's from ${bar}`,
  rank: (d, q) => {
    const v = vectorLeg(d, q, false)
    const traw = new Map([...q.text].map(([doc, e]) => [doc, textRaw(e)]))
    const vraw = new Map([...v].map(([doc, e]) => [doc, vectorRawOf(e, 0)]))
    const docs = new Set([...traw.keys(), ...vraw.keys()])
    const h = chances(
      new Map([...docs].map((doc) => [doc, (traw.get(doc) ?? 0) + MODEL.hybridVector * (vraw.get(doc) ?? 0)])),
      MODEL.calibration.hybrid,
    )
    const vc = chances(vraw, MODEL.calibration.vector)
    return byScore(new Map([...h].map(([doc, p]) => [doc, (vc.get(doc) ?? 0) >= bar ? Math.max(p, vc.get(doc)!) : p])))
  },
})
