// What the variants of scripts/eval/variants.ts are made of: a set's evidence as evidence.ts wrote it,
// the vector leg's evidence of a question's documents, and the text, vector and hybrid rankings.
import fs from 'node:fs'
import { MODEL, type TextEvidence, calibrate, mean } from '../../queries/search'
import { isProse } from '../../ingestion/passages'

export interface Passage {
  doc: string
  chunk: number
  n: number
  text: string
  v: Float32Array
  prose: boolean
}
export interface Q {
  id: string
  query: string
  kind: string
  judgments: Record<string, number>
  text: Map<string, TextEvidence>
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

/** `none`: keep the questions nothing answers (they calibrate scores; they have no nDCG). */
export const load = (file: string, none = false) => {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8'))
  const passages: Passage[] = raw.passages.map((p: any) => ({ ...p, v: vec(p.v), prose: isProse(p.text) }))
  const chunks = raw.chunks.map((c: any) => ({ ...c, v: vec(c.v) }))
  const questions: Q[] = raw.questions
    .filter((q: any) => none || q.kind !== 'none')
    .map((q: any) => {
      const qv = vec(q.qvec)
      return {
        id: q.id,
        query: q.query,
        kind: q.kind,
        judgments: q.judgments,
        text: new Map(
          q.text.map(([doc, chunk, body, title, coverage = 0]: any) => [doc, { chunk, body, title, coverage }]),
        ),
        sims: Float32Array.from(passages.map((p) => cos(qv, p.v))),
        chunkSims: Float32Array.from(chunks.map((c: any) => cos(qv, c.v))),
      }
    })
  // A document with no passage of prose keeps all its passages (else the vector leg could not find it).
  const proseDocs = new Set(passages.filter((p) => p.prose).map((p) => p.doc))
  for (const p of passages) p.prose ||= !proseDocs.has(p.doc)
  return { set: raw.set as string, passages, chunks: chunks as Array<{ doc: string; chunk: number }>, questions }
}

export type Data = ReturnType<typeof load>

/** The vector leg's evidence per document: from the `depth` nearest passages (of those `use` keeps). */
const legs = new Map<string, Map<string, { best: number; top3: number; chunk: number }>>()
export const vectorLeg = (d: Data, q: Q, prose: boolean) => {
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

export const textRaw = (e?: { chunk: number; body: number; title: number }) => (e ? e.chunk + e.body + e.title : 0)

export interface Variant {
  name: string
  rank(d: Data, q: Q): string[]
}

export const byScore = (scores: Map<string, number>) => [...scores].sort((a, b) => b[1] - a[1]).map(([doc]) => doc)

export const vectorRawOf = (v: { best: number; top3: number; chunk: number }, chunkWeight: number) =>
  MODEL.vector.best * v.best + MODEL.vector.top3 * v.top3 + chunkWeight * v.chunk

/**
 * Hybrid: text raw + w · vector raw, `w` fixed or from the query (adaptive); `slot`: the vector leg's
 * confident first find kept in the top 10.
 */
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
    const [v1] = [...vraw.values()].sort((a, b) => b - a)
    const best = vtop[0]
    // The vector leg's first find, when its calibrated chance of relevance clears the bar, keeps a place in the top 10.
    const chance = calibrate(v1, MODEL.calibration.vector)
    if (best !== undefined && chance >= o.slot.bar && ranked.indexOf(best) >= o.slot.at) {
      ranked.splice(ranked.indexOf(best), 1)
      ranked.splice(o.slot.at - 1, 0, best)
    }
    return ranked
  },
})

export const text: Variant = {
  name: 'text',
  rank: (_d, q) => byScore(new Map([...q.text].map(([doc, e]) => [doc, textRaw(e)]))),
}
export const vector = (prose: boolean, chunkWeight = 0): Variant => ({
  name: `vector${prose ? ' prose' : ''}${chunkWeight ? ` chunk ${chunkWeight}` : ''}`,
  rank: (d, q) => byScore(new Map([...vectorLeg(d, q, prose)].map(([doc, e]) => [doc, vectorRawOf(e, chunkWeight)]))),
})
