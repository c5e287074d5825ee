export interface Embedder {
  /** Identifies the model and its preprocessing; vectors of two models are never compared. */
  readonly model: string
  /**
   * Words of text the model reads whole (a small model reads little): an entry is then indexed as
   * passages of this many words, each with its own vector. Unset for a model that reads a whole
   * chunk: one vector per chunk.
   */
  readonly passageWords?: number
  /** The length of the model's vectors: they are stored at that length, never padded. */
  readonly dimensions: number
  /** Threads running the model on this machine (a model behind an API has none here). */
  readonly workers?: number
  /** The operating system's ids of those threads, where it tells them (Linux): profiles split CPU time by thread. */
  threadIds?(): number[]
  embed(texts: string[]): Promise<number[][]>
  close?(): Promise<void>
}

export const normalize = (v: number[]): number[] => {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0))
  return norm > 0 ? v.map((x) => x / norm) : v
}

/** A vector of the wrong length or with a non-finite value is refused, never stored. */
export const checkVector = (v: unknown, model: string, dimensions: number): number[] => {
  if (!Array.isArray(v) || v.length !== dimensions)
    throw new Error(
      `${model} returned a vector of length ${Array.isArray(v) ? v.length : typeof v}, expected ${dimensions}`,
    )
  if (!v.every((x) => typeof x === 'number' && Number.isFinite(x)))
    throw new Error(`${model} returned a vector with a non-finite value`)
  return v as number[]
}
