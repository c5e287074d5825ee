// `tsx scripts/eval/variants.ts <evidence.json>...`: nDCG@10 of ways to fuse the legs, per question kind and
// set, from what scripts/eval/evidence.ts wrote (no service runs). Each variant is a ranking of the
// documents of a question from the text leg's evidence and the passages' and chunks' similarities.
import fs from 'node:fs'
import { MODEL, calibrate, mean, ndcgAt } from '../../queries/search'
import { isProse } from '../../ingestion/passages'
import { SETS, loadDocs } from './sets'

interface Passage {
  doc: string
  chunk: number
  n: number
  text: string
  v: Float32Array
  prose: boolean
}
interface Q {
  id: string
  query: string
  kind: string
  judgments: Record<string, number>
  text: Map<string, { chunk: number; body: number; title: number }>
  sims: Float32Array
  chunkSims: Float32Array
}

const vec = (b64: string) => {
  const buf = Buffer.from(b64, 'base64')
  return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4)
}
const cos = (a: Float32Array, b: Float32Array) => {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i]
    na += a[i] * a[i]
    nb += b[i] * b[i]
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0
}

const load = (file: string) => {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  const passages: Passage[] = raw.passages.map((p: any) => ({ ...p, v: vec(p.v), prose: isProse(p.text) }))
  const chunks = raw.chunks.map((c: any) => ({ ...c, v: vec(c.v) }))
  const questions: Q[] = raw.questions
    .filter((q: any) => q.kind !== 'none')
    .map((q: any) => {
      const qv = vec(q.qvec)
      return {
        id: q.id,
        query: q.query,
        kind: q.kind,
        judgments: q.judgments,
        text: new Map(q.text.map(([doc, chunk, body, title]: any) => [doc, { chunk, body, title }])),
        sims: Float32Array.from(passages.map((p) => cos(qv, p.v))),
        chunkSims: Float32Array.from(chunks.map((c: any) => cos(qv, c.v))),
      }
    })
  // A document with no passage of prose keeps all its passages (else the vector leg could not find it).
  const proseDocs = new Set(passages.filter((p) => p.prose).map((p) => p.doc))
  for (const p of passages) p.prose ||= !proseDocs.has(p.doc)
  return { set: raw.set as string, passages, chunks: chunks as Array<{ doc: string; chunk: number }>, questions }
}

type Data = ReturnType<typeof load>

/** The vector leg's evidence per document: from the `depth` nearest passages (of those `use` keeps). */
const legs = new Map<string, Map<string, { best: number; top3: number; chunk: number }>>()
const vectorLeg = (d: Data, q: Q, prose: boolean) => {
  const key = `${d.set}:${q.id}:${prose}`
  if (!legs.has(key))
    legs.set(
      key,
      vectorLegOf(d, q, (p) => !prose || p.prose),
    )
  return legs.get(key)!
}
const vectorLegOf = (d: Data, q: Q, use: (p: Passage) => boolean, depth = 200) => {
  const order = [...q.sims.keys()].filter((i) => use(d.passages[i])).sort((a, b) => q.sims[b] - q.sims[a])
  const byDoc = new Map<string, number[]>()
  for (const i of order.slice(0, depth)) {
    const doc = d.passages[i].doc
    byDoc.set(doc, [...(byDoc.get(doc) ?? []), q.sims[i]])
  }
  const chunkBest = new Map<string, number>()
  d.chunks.forEach((c, i) => chunkBest.set(c.doc, Math.max(chunkBest.get(c.doc) ?? -1, q.chunkSims[i])))
  return new Map(
    [...byDoc].map(([doc, s]) => {
      const top = s.slice(0, 3)
      return [doc, { best: top[0], top3: mean(top), chunk: chunkBest.get(doc) ?? 0 }]
    }),
  )
}

const textRaw = (e?: { chunk: number; body: number; title: number }) => (e ? e.chunk + e.body + e.title : 0)

export interface Variant {
  name: string
  rank(d: Data, q: Q): string[]
}

const byScore = (scores: Map<string, number>) => [...scores].sort((a, b) => b[1] - a[1]).map(([doc]) => doc)

const vectorRawOf = (v: { best: number; top3: number; chunk: number }, chunkWeight: number) =>
  MODEL.vector.best * v.best + MODEL.vector.top3 * v.top3 + chunkWeight * v.chunk

/** Hybrid: text raw + w · vector raw, `w` from the query (adaptive) or fixed; `slots`: the vector leg's confident finds kept in the top 10. */
export const hybrid = (o: {
  name: string
  weight: (text: number[], vector: number[]) => number
  prose?: boolean
  chunkWeight?: number
  slot?: { bar: number; at: number }
}): Variant => ({
  name: o.name,
  rank: (d, q) => {
    const v = vectorLeg(d, q, o.prose ?? false)
    const vraw = new Map([...v].map(([doc, e]) => [doc, vectorRawOf(e, o.chunkWeight ?? 0)]))
    const traw = new Map([...q.text].map(([doc, e]) => [doc, textRaw(e)]))
    const w = o.weight(
      [...traw.values()].sort((a, b) => b - a),
      [...vraw.values()].sort((a, b) => b - a),
    )
    const docs = new Set([...traw.keys(), ...vraw.keys()])
    const ranked = byScore(new Map([...docs].map((doc) => [doc, (traw.get(doc) ?? 0) + w * (vraw.get(doc) ?? 0)])))
    if (!o.slot) return ranked
    const vtop = byScore(vraw)
    const [v1, v2 = 0] = [...vraw.values()].sort((a, b) => b - a)
    const best = vtop[0]
    // The vector leg's first find, when its calibrated chance of relevance clears the bar, keeps a place in the top 10.
    const chance = calibrate(v1, v1, v2, MODEL.calibration.vector)
    if (best !== undefined && chance >= o.slot.bar && ranked.indexOf(best) >= o.slot.at) {
      ranked.splice(ranked.indexOf(best), 1)
      ranked.splice(o.slot.at - 1, 0, best)
    }
    return ranked
  },
})

const text: Variant = {
  name: 'text',
  rank: (_d, q) => byScore(new Map([...q.text].map(([doc, e]) => [doc, textRaw(e)]))),
}
const vector = (prose: boolean, chunkWeight = 0): Variant => ({
  name: `vector${prose ? ' prose' : ''}${chunkWeight ? ` chunk ${chunkWeight}` : ''}`,
  rank: (d, q) => byScore(new Map([...vectorLeg(d, q, prose)].map(([doc, e]) => [doc, vectorRawOf(e, chunkWeight)]))),
})

// RM3 (pseudo-relevance feedback) over the documents' text: a trial, tokenised simply (lowercase words of
// three letters or more, a short stop list), BM25 of the expansion terms added to the text leg's evidence.
const STOP = new Set(
  'the and for are but not you all any can had her was one our out has have this that with from they will would there their what about which when make like time just know take into year your some could them than then look only come over also back after use two how its these want way well because any give most'.split(
    ' ',
  ),
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
const rm3Text = (lambda: number): Variant => ({
  name: `text + RM3 λ ${lambda}`,
  rank: (d, q) => byScore(rm3(d, q, lambda)),
})
const rm3Hybrid = (lambda: number): Variant => ({
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

/** Calibrated chances of raw scores, each against the best two of its search (as the service serves them). */
const chances = (raws: Map<string, number>, c: (typeof MODEL.calibration)['text']) => {
  const [best = 0, second = 0] = [...raws.values()].sort((a, b) => b - a)
  return new Map([...raws].map(([doc, raw]) => [doc, calibrate(raw, best, second, c)]))
}
/** Hybrid whose served chance of a result is at least the vector leg's own (where that clears `bar`). */
const atLeastVector = (bar: number): Variant => ({
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

const KINDS = ['all', 'keyword', 'paraphrase', 'option']
const score = (d: Data, v: Variant) =>
  KINDS.map((kind) =>
    mean(d.questions.filter((q) => kind === 'all' || q.kind === kind).map((q) => ndcgAt(v.rank(d, q), q.judgments))),
  )

/** Adaptive: the vector leg's weight grows as the text leg's best evidence falls under `below`. */
const adaptive = (base: number, gain: number, below: number) => (text: number[]) =>
  base + gain * Math.max(0, below - (text[0] ?? 0))

const fixed: Variant[] = [
  text,
  vector(false),
  vector(true),
  vector(false, 0.5),
  vector(true, 0.5),
  vector(true, 1),
  hybrid({ name: 'hybrid (now)', weight: () => MODEL.hybridVector }),
  ...[0.25, 0.5, 1].flatMap((l) => [rm3Text(l), rm3Hybrid(l)]),
  ...[0, 0.3, 0.5].map(atLeastVector),
  hybrid({ name: 'hybrid now + prose', weight: () => MODEL.hybridVector, prose: true }),
  hybrid({ name: 'hybrid now + chunk 0.5', weight: () => MODEL.hybridVector, chunkWeight: 0.5 }),
  ...[0.3, 0.5, 0.7].flatMap((bar) =>
    [3, 5, 10].map((at) =>
      hybrid({ name: `hybrid now + slot p≥${bar}@${at}`, weight: () => MODEL.hybridVector, slot: { bar, at } }),
    ),
  ),
  hybrid({ name: 'hybrid adaptive 0.1+0.5·(1.5-t1)', weight: adaptive(0.1, 0.5, 1.5) }),
  hybrid({ name: 'hybrid adaptive 0.1+1·(1.5-t1)', weight: adaptive(0.1, 1, 1.5) }),
  hybrid({ name: 'hybrid adaptive 0.1+2·(1-t1)', weight: adaptive(0.1, 2, 1) }),
]
/**
 * Chosen on python alone before any held-out figure was seen: python's best adaptive weight, a place
 * for the vector leg's first find at even odds (python cannot tell the places apart: no question there
 * has its first vector find right with nothing right in the text leg's top 10), and python's best of
 * the whole grid among those that keep its keyword figure (with the same place).
 */
const SLOT = { bar: 0.5, at: 3 }
const chosen: Variant[] = [
  hybrid({ name: 'chosen: adaptive 0.1+0.5·(1.5-t1)', weight: adaptive(0.1, 0.5, 1.5) }),
  hybrid({ name: 'chosen: slot p≥0.5@3', weight: () => MODEL.hybridVector, slot: SLOT }),
  hybrid({ name: 'chosen: adaptive + slot', weight: adaptive(0.1, 0.5, 1.5), slot: SLOT }),
  hybrid({ name: 'chosen: adaptive + slot + prose', weight: adaptive(0.1, 0.5, 1.5), slot: SLOT, prose: true }),
  hybrid({
    name: 'chosen: grid best 0.2+0.5·(1.5-t1) chunk 0.5 + slot',
    weight: adaptive(0.2, 0.5, 1.5),
    chunkWeight: 0.5,
    slot: SLOT,
  }),
]
const grid: Variant[] = []
for (const prose of [false, true])
  for (const chunkWeight of [0, 0.5])
    for (const [base, gain, below] of [
      [0.1, 0, 0],
      [0.2, 0, 0],
      [0.3, 0, 0],
      ...[0.1, 0.2].flatMap((b) => [0.25, 0.5, 1, 2].flatMap((g) => [1, 1.5, 2].map((t) => [b, g, t]))),
    ])
      for (const slot of [undefined, ...[0.3, 0.5, 0.7].flatMap((bar) => [3, 5, 10].map((at) => ({ bar, at })))])
        grid.push(
          hybrid({
            name:
              `hybrid w ${base}${gain ? `+${gain}·(${below}-t1)` : ''}${prose ? ' prose' : ''}` +
              `${chunkWeight ? ` chunk ${chunkWeight}` : ''}${slot ? ` slot ${slot.bar}@${slot.at}` : ''}`,
            weight: adaptive(base, gain, below),
            prose,
            chunkWeight,
            slot,
          }),
        )

const sets = process.argv.slice(2).map(load)
const table = (d: Data, vs: Variant[]) => {
  process.stdout.write(`| variant | ${KINDS.join(' | ')} |\n|---|${KINDS.map(() => '---:').join('|')}|\n`)
  for (const v of vs)
    process.stdout.write(
      `| ${v.name} | ${score(d, v)
        .map((x) => x.toFixed(3))
        .join(' | ')} |\n`,
    )
}
// Chosen on the tuning set alone: the best overall, among those that lose nothing on keyword questions.
const tuning = sets.find((d) => d.set === 'python')
const now = tuning && score(tuning, fixed[fixed.length - 1])
const best = tuning
  ? grid
      .map((v) => ({ v, s: score(tuning, v) }))
      .filter((x) => x.s[1] >= now![1] - 1e-9)
      .sort((a, b) => b.s[0] - a.s[0])
      .slice(0, Number(process.env.VARIANTS_SHOWN ?? 12))
      .map((x) => x.v)
  : []
/** Questions whose text top 10 holds nothing relevant while the vector leg's first find is relevant. */
const rescued = (d: Data) =>
  d.questions
    .filter((q) => {
      const t = text.rank(d, q).slice(0, 10)
      const v = vector(false).rank(d, q)[0]
      return !t.some((doc) => (q.judgments[doc] ?? 0) > 0) && (q.judgments[v] ?? 0) > 0
    })
    .map((q) => `${q.kind} ${q.id}`)
for (const d of sets) {
  process.stdout.write(`\n${d.set}: vector first right where text top 10 holds nothing: ${rescued(d).join(', ')}\n`)
  const prose = d.passages.filter((p) => p.prose).length
  process.stdout.write(
    `\n## ${d.set}: ${d.questions.length} questions, ${d.passages.length} passages (${prose} prose)\n\n`,
  )
  table(d, [...fixed, ...chosen, ...best])
}
