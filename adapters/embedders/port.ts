/** Vectors are 1536-dimensional; `model` is stored with every vector. */
export const DIMENSIONS = 1536

export interface Embedder {
  /** Identifies the model and its preprocessing; vectors of two models are never compared. */
  readonly model: string
  /**
   * Words of text the model reads whole (a small model reads little): an entry is then indexed as
   * passages of this many words, each with its own vector. Unset for a model that reads a whole
   * chunk: one vector per chunk.
   */
  readonly passageWords?: number
  /** The model's own dimensions, when fewer than DIMENSIONS: the rest of every vector is zeros. */
  readonly dimensions?: number
  embed(texts: string[]): Promise<number[][]>
  close?(): Promise<void>
}

export const normalize = (v: number[]): number[] => {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return norm > 0 ? v.map((x) => x / norm) : v
}

/** Zero-padding keeps cosine similarity exactly. */
export const padTo = (v: ArrayLike<number>, n = DIMENSIONS): number[] => {
  const out = new Array<number>(n).fill(0)
  for (let i = 0; i < Math.min(v.length, n); i++) out[i] = v[i]
  return out
}

/** A vector of the wrong length or with a non-finite value is refused, never stored. */
export const checkVector = (v: unknown, model: string): number[] => {
  if (!Array.isArray(v) || v.length !== DIMENSIONS)
    throw new Error(
      `${model} returned a vector of length ${Array.isArray(v) ? v.length : typeof v}, expected ${DIMENSIONS}`,
    )
  if (!v.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new Error(`${model} returned a vector with a non-finite value`)
  return v as number[]
}
