import { type Embedder, normalize } from './port'

const DIMENSIONS = 1536

// FNV-1a: a fast, stable hash; the same text always gives the same vector.
const fnv = (s: string) => {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const add = (v: number[], feature: string, weight: number) => {
  const h = fnv(feature)
  v[h % DIMENSIONS] += (h & 0x80000000 ? -1 : 1) * weight
}

/** Word unigrams, word bigrams and character trigrams hashed into 1536 signed dimensions. */
export const hashingEmbedder = (): Embedder => ({
  model: 'hashing-v1',
  // As the local model: tests index entries as passages, as the default service does.
  passageWords: 40,
  dimensions: DIMENSIONS,
  embed: async (texts) =>
    texts.map((text) => {
      const v = new Array<number>(DIMENSIONS).fill(0)
      const words =
        text
          .toLowerCase()
          .normalize('NFKC')
          .match(/[\p{L}\p{N}]+/gu) ?? []
      words.forEach((w, i) => {
        add(v, `w:${w}`, 1)
        if (i > 0) add(v, `b:${words[i - 1]} ${w}`, 0.5)
        const padded = ` ${w} `
        for (let j = 0; j + 3 <= padded.length; j++) add(v, `c:${padded.slice(j, j + 3)}`, 0.25)
      })
      return normalize(v)
    }),
})
