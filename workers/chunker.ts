import { countTokens } from '../adapters/text'

export interface ChunkingOptions {
  chunkSizeTokens: number
  overlapTokens: number
  preserveSentences: boolean
}

export interface Chunk {
  index: number
  text: string
  /** Character offsets of the chunk in the content. */
  start: number
  end: number
  tokenCount: number
}

interface Unit {
  start: number
  end: number
  tokens: number
}

const SENTENCE = /[^.!?\n]+(?:[.!?]+["')\]]*|\n+|$)\s*/g
const WORD = /\S+\s*/g

const spans = (text: string, re: RegExp, offset: number): Unit[] => {
  const out: Unit[] = []
  for (const m of text.matchAll(re)) {
    if (!m[0]) continue
    const start = offset + (m.index ?? 0)
    out.push({ start, end: start + m[0].length, tokens: 0 })
  }
  return out
}

/**
 * Splits content into units that a chunk never cuts: sentences when preserveSentences (a sentence
 * longer than a chunk falls back to its words), otherwise words. Leading whitespace is skipped.
 */
const unitsOf = (content: string, options: ChunkingOptions, count: (s: string) => number): Unit[] => {
  const lead = content.length - content.trimStart().length
  const words = (start: number, end: number) => spans(content.slice(start, end), WORD, start)
  const base = options.preserveSentences ? spans(content.slice(lead), SENTENCE, lead) : words(lead, content.length)
  const units: Unit[] = []
  for (const u of base) {
    u.tokens = count(content.slice(u.start, u.end))
    if (u.tokens <= options.chunkSizeTokens) units.push(u)
    else for (const w of words(u.start, u.end)) units.push({ ...w, tokens: count(content.slice(w.start, w.end)) })
  }
  return units
}

/**
 * Token-budgeted chunks with overlap. Chunks break between units (sentence ends where possible,
 * never inside a word) and the next chunk repeats the last units of the previous one up to
 * overlapTokens. A single word longer than a chunk becomes a chunk of its own.
 */
export const chunkText = (content: string, options: ChunkingOptions): Chunk[] => {
  const cache = new Map<string, number>()
  const count = (s: string) => {
    let n = cache.get(s)
    if (n === undefined) cache.set(s, (n = countTokens(s)))
    return n
  }
  const units = unitsOf(content, options, count)
  const chunks: Chunk[] = []
  let i = 0
  while (i < units.length) {
    let j = i
    let tokens = 0
    while (j < units.length && (j === i || tokens + units[j].tokens <= options.chunkSizeTokens)) tokens += units[j++].tokens
    const start = units[i].start
    const end = units[j - 1].end
    const text = content.slice(start, end).trimEnd()
    chunks.push({ index: chunks.length, text, start, end: start + text.length, tokenCount: countTokens(text) })
    if (j >= units.length) break
    // Step back over whole units for the overlap, but always move forward.
    let k = j
    let overlap = 0
    while (k - 1 > i && overlap + units[k - 1].tokens <= options.overlapTokens) overlap += units[--k].tokens
    i = k
  }
  return chunks
}
