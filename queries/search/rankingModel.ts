import type { SearchMode } from '../../domain/shared'
/**
 * The ranking model: how the legs' evidence about an entry becomes its order and its score. Pure:
 * the legs (./ranking.ts) gather the evidence from the database; this decides. The weights were
 * fitted on the Python evaluation set only, the calibrations on it, the set of mixed sizes and the
 * PostgreSQL set (docs/search.md says how); the Git set is held out.
 *
 * Evidence, each in [0, 1]:
 * - text: BM25 of the entry's best chunk, of its whole text and of its title, each divided by the
 *   most the query could score (adapters/textIndex/bm25.ts), and the coverage of the question;
 * - vector: cosine similarity of the entry's best passage, and the mean of its best three.
 * A mode's raw score is a weighted sum of its evidence; hybrid's is the text sum plus the vector
 * sum times a weight: a convex combination of normalised scores, not of ranks. A leg with nothing
 * to say about an entry adds nothing to it.
 *
 * The served score is the calibrated chance that the entry is relevant, from its raw score alone,
 * never from the other results of the search: the same score means about the same chance in every
 * mode, query and workspace, whatever else the workspace holds. In text and hybrid, an entry one of
 * whose passages holds the whole question scores at least even odds.
 */
export interface TextEvidence {
  chunk: number
  body: number
  title: number
  /** The most of the question's words (weighted by rarity) one passage holds with its title, in [0, 1]. */
  coverage: number
}

export interface VectorEvidence {
  best: number
  top3: number
}

/** Logistic calibration of a raw score: 1 / (1 + e^-(raw·w + bias)), w positive. */
export interface Calibration {
  raw: number
  bias: number
}

export type Mode = SearchMode
/** How hybrid orders: by its calibrated chance (the default), or by Reciprocal Rank Fusion of the legs' orders. */
export type Fusion = 'score' | 'rrf'

export const MODEL = {
  // Equal weights: the fitted optimum on the tuning set gained nothing a held-out set could trust.
  text: { chunk: 1, body: 1, title: 1 } satisfies Omit<TextEvidence, 'coverage'>,
  vector: { best: 0.5, top3: 1 } satisfies VectorEvidence,
  /** Weight of the vector sum beside the text sum in hybrid's raw score. */
  hybridVector: 0.1,
  calibration: {
    text: { raw: 3.65, bias: -5.87 },
    vector: { raw: 3.06, bias: -5.48 },
    hybrid: { raw: 3.72, bias: -6.17 },
  } satisfies Record<Mode, Calibration>,
  /**
   * The least score of a result one of whose passages holds, with its title, every word of the
   * question that the workspace knows (text and hybrid): with the defaults untouched, it is returned.
   */
  wholeQuestion: 0.5,
  /** Coverage that counts as the whole question (a share in [0, 1]; 1 up to rounding). */
  whole: 0.999,
}

export const textRaw = (e: TextEvidence) =>
  MODEL.text.chunk * e.chunk + MODEL.text.body * e.body + MODEL.text.title * e.title

export const vectorRaw = (e: VectorEvidence) => MODEL.vector.best * e.best + MODEL.vector.top3 * e.top3

export const hybridRaw = (t: TextEvidence, v: VectorEvidence) => textRaw(t) + MODEL.hybridVector * vectorRaw(v)

/** A raw score as a chance of relevance in [0, 1]. */
export const calibrate = (raw: number, c: Calibration) => 1 / (1 + Math.exp(-(c.raw * raw + c.bias)))

/** A text or hybrid chance as served: at least `wholeQuestion` where a passage holds the whole question. */
const served = (chance: number, t: TextEvidence) =>
  t.coverage >= MODEL.whole ? Math.max(chance, MODEL.wholeQuestion) : chance

export interface Fused {
  key: string
  /** The calibrated chance of relevance of the mode that answered (raised to the floor of a whole question). */
  score: number
  scores: { text?: number; vector?: number; fused: number }
  /** Rank of the key in each leg that found it (1 is first). */
  ranks: { text?: number; vector?: number }
  /** What the scores were computed from (not served; the evaluation fits the model on it). */
  evidence: { text: TextEvidence; vector: VectorEvidence }
}

const NO_TEXT: TextEvidence = { chunk: 0, body: 0, title: 0, coverage: 0 }
const NO_VECTOR: VectorEvidence = { best: 0, top3: 0 }
const RRF_K = 60

/** 1-based ranks of keys by their chances, ties broken by key so that the order is stable. */
const ranksOf = (chances: Map<string, number>) =>
  new Map([...chances].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([key], i) => [key, i + 1]))

const mapValues = <A, B>(m: Map<string, A>, f: (a: A) => B) => new Map([...m].map(([k, v]) => [k, f(v)]))

/**
 * The results of a search from its legs' evidence (a key absent from a leg has nothing from it),
 * most likely relevant first (by chance: a score raised by the floor of a whole question stays where
 * its chance puts it). In hybrid with `fusion: 'rrf'` the order is Reciprocal Rank Fusion's (k = 60)
 * and the score is still the calibrated one.
 */
export const fuse = (
  text: Map<string, TextEvidence>,
  vector: Map<string, VectorEvidence>,
  mode: Mode,
  fusion: Fusion,
): Fused[] => {
  const { calibration } = MODEL
  // Each key's chance in each leg and in the mode, from its own evidence. The order is the chances';
  // the score served is the chance with the floor of a whole question (`served`), which returns such an
  // entry with the defaults without moving it: a floor that reordered cost a held-out set 0.013 nDCG@10.
  const textChances = mapValues(text, (e) => calibrate(textRaw(e), calibration.text))
  const vectorChances = mapValues(vector, (e) => calibrate(vectorRaw(e), calibration.vector))
  const keys = [...new Set([...(mode === 'vector' ? [] : text.keys()), ...(mode === 'text' ? [] : vector.keys())])]
  const chances =
    mode === 'text'
      ? textChances
      : mode === 'vector'
        ? vectorChances
        : new Map(
            keys.map((k) => [
              k,
              calibrate(hybridRaw(text.get(k) ?? NO_TEXT, vector.get(k) ?? NO_VECTOR), calibration.hybrid),
            ]),
          )
  const textScores = new Map([...textChances].map(([k, p]) => [k, served(p, text.get(k)!)]))
  const modeScores =
    mode === 'vector' ? vectorChances : new Map(keys.map((k) => [k, served(chances.get(k)!, text.get(k) ?? NO_TEXT)]))
  const textRanks = ranksOf(textChances)
  const vectorRanks = ranksOf(vectorChances)
  const fused: Fused[] = keys.map((key) => {
    const scores = {
      ...(mode !== 'vector' ? { text: textScores.get(key) ?? calibrate(0, calibration.text) } : {}),
      ...(mode !== 'text' ? { vector: vectorChances.get(key) ?? calibrate(0, calibration.vector) } : {}),
    }
    const score = modeScores.get(key)!
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
  const chance = (h: Fused) => chances.get(h.key) ?? 0
  return fused.sort((a, b) => (byRrf ? rrf(b) - rrf(a) : 0) || chance(b) - chance(a) || (a.key < b.key ? -1 : 1))
}
