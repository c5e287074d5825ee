/**
 * The ranking model: how the legs' evidence about an entry becomes its order and its score. Pure:
 * the legs (./ranking.ts) gather the evidence from the database; this decides. Weights and
 * calibrations were fitted on the Python evaluation set only (eval/python; docs/search.md says
 * how); the PostgreSQL set is held out and only measured.
 *
 * Evidence, each in [0, 1]:
 * - text: BM25 of the entry's best chunk, of its whole text and of its title, each divided by the
 *   most the query could score (adapters/textIndex/bm25.ts);
 * - vector: cosine similarity of the entry's best passage, and the mean of its best three.
 * A mode's raw score is a weighted sum of its evidence; hybrid's is the text sum plus the vector
 * sum times a weight: a convex combination of normalised scores, not of ranks. A leg with nothing
 * to say about an entry adds nothing to it.
 *
 * The served score is the calibrated chance that the entry is relevant, from its raw score and how
 * it stands against the other results of the same search (as a share of the best raw score, and
 * its lead over the second): the same score means about the same chance in every mode and query.
 */
export interface TextEvidence {
  chunk: number
  body: number
  title: number
}

export interface VectorEvidence {
  best: number
  top3: number
}

/**
 * Logistic calibration: 1 / (1 + e^-(raw·w + share·w + lead·w + bias)); every weight positive, so it keeps the raw
 * order.
 */
export interface Calibration {
  raw: number
  share: number
  lead: number
  bias: number
}

export type Mode = 'hybrid' | 'vector' | 'text'
/** How hybrid orders: by its calibrated score (the default), or by Reciprocal Rank Fusion of the legs' orders. */
export type Fusion = 'score' | 'rrf'

export const MODEL = {
  // Equal weights: the fitted optimum on the tuning set gained nothing a held-out set could trust.
  text: { chunk: 1, body: 1, title: 1 } satisfies TextEvidence,
  vector: { best: 0.5, top3: 1 } satisfies VectorEvidence,
  /** Weight of the vector sum beside the text sum in hybrid's raw score. */
  hybridVector: 0.1,
  calibration: {
    text: { raw: 2.24, share: 4.17, lead: 2.49, bias: -6.91 },
    vector: { raw: 2.95, share: 10.32, lead: 26.15, bias: -15.06 },
    hybrid: { raw: 2.37, share: 4.5, lead: 2.45, bias: -7.45 },
  } satisfies Record<Mode, Calibration>,
}

export const textRaw = (e: TextEvidence) =>
  MODEL.text.chunk * e.chunk + MODEL.text.body * e.body + MODEL.text.title * e.title

export const vectorRaw = (e: VectorEvidence) => MODEL.vector.best * e.best + MODEL.vector.top3 * e.top3

export const hybridRaw = (t: TextEvidence, v: VectorEvidence) => textRaw(t) + MODEL.hybridVector * vectorRaw(v)

/** A raw score as a chance of relevance in [0, 1], given the best and second-best raw scores of its search. */
export const calibrate = (raw: number, best: number, second: number, c: Calibration) => {
  const share = best > 0 ? raw / best : 0
  return 1 / (1 + Math.exp(-(c.raw * raw + c.share * share + c.lead * (raw - second) + c.bias)))
}

/** Calibrated scores of raw scores (by key), each against the best two of them. */
const calibrated = (raws: Map<string, number>, c: Calibration) => {
  const [best = 0, second = 0] = [...raws.values()].sort((a, b) => b - a)
  return new Map([...raws].map(([key, raw]) => [key, calibrate(raw, best, second, c)]))
}

export interface Fused {
  key: string
  /** The calibrated chance of relevance of the mode that answered. */
  score: number
  scores: { text?: number; vector?: number; fused: number }
  /** Rank of the key in each leg that found it (1 is first). */
  ranks: { text?: number; vector?: number }
  /** What the scores were computed from (not served; the evaluation fits the model on it). */
  evidence: { text: TextEvidence; vector: VectorEvidence }
}

const NO_TEXT: TextEvidence = { chunk: 0, body: 0, title: 0 }
const NO_VECTOR: VectorEvidence = { best: 0, top3: 0 }
const RRF_K = 60

/** 1-based ranks of keys by a score, ties broken by key so that the order is stable. */
const ranksOf = (scores: Map<string, number>) =>
  new Map([...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key], i) => [key, i + 1]))

const mapValues = <A, B>(m: Map<string, A>, f: (a: A) => B) => new Map([...m].map(([k, v]) => [k, f(v)]))

/**
 * The results of a search from its legs' evidence (a key absent from a leg has nothing from it),
 * best first. In hybrid with `fusion: 'rrf'` the order is Reciprocal Rank Fusion's (k = 60) and
 * the score is still the calibrated one.
 */
export const fuse = (
  text: Map<string, TextEvidence>,
  vector: Map<string, VectorEvidence>,
  mode: Mode,
  fusion: Fusion,
): Fused[] => {
  const textScores = calibrated(mapValues(text, textRaw), MODEL.calibration.text)
  const vectorScores = calibrated(mapValues(vector, vectorRaw), MODEL.calibration.vector)
  const keys = [...new Set([...(mode === 'vector' ? [] : text.keys()), ...(mode === 'text' ? [] : vector.keys())])]
  const hybridScores =
    mode === 'hybrid'
      ? calibrated(
          new Map(keys.map((k) => [k, hybridRaw(text.get(k) ?? NO_TEXT, vector.get(k) ?? NO_VECTOR)])),
          MODEL.calibration.hybrid,
        )
      : new Map<string, number>()
  const textRanks = ranksOf(textScores)
  const vectorRanks = ranksOf(vectorScores)
  const fused: Fused[] = keys.map((key) => {
    const scores = {
      ...(mode !== 'vector' ? { text: textScores.get(key) ?? calibrate(0, 1, 1, MODEL.calibration.text) } : {}),
      ...(mode !== 'text' ? { vector: vectorScores.get(key) ?? calibrate(0, 1, 1, MODEL.calibration.vector) } : {}),
    }
    const score = mode === 'text' ? scores.text! : mode === 'vector' ? scores.vector! : hybridScores.get(key)!
    const ranks = {
      ...(mode !== 'vector' && textRanks.has(key) ? { text: textRanks.get(key) } : {}),
      ...(mode !== 'text' && vectorRanks.has(key) ? { vector: vectorRanks.get(key) } : {}),
    }
    return {
      key,
      score,
      scores: { ...scores, fused: score },
      ranks,
      evidence: { text: text.get(key) ?? NO_TEXT, vector: vector.get(key) ?? NO_VECTOR },
    }
  })
  const rrf = (h: Fused) =>
    (h.ranks.text ? 1 / (RRF_K + h.ranks.text) : 0) + (h.ranks.vector ? 1 / (RRF_K + h.ranks.vector) : 0)
  const byRrf = mode === 'hybrid' && fusion === 'rrf'
  return fused.sort((a, b) => (byRrf ? rrf(b) - rrf(a) : 0) || b.score - a.score || (a.key < b.key ? -1 : 1))
}
