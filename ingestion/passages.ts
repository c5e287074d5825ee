import { pieceText } from './tables'

/**
 * Passages: the pieces of an entry's content that a small embedding model reads whole. The local
 * model reads 128 of its tokens (about 60 words of technical English); a chunk of 1000 tokens
 * averaged into one vector blurs what it says, so the vector index holds one vector per passage
 * and the best passage stands for its chunk and its entry.
 *
 * Passages cover the content without overlap, whole sentences (or lines) packed up to a word
 * budget; a longer sentence is cut between words. They depend on the content alone, never on the
 * chunking, so the overlap of two chunks is embedded once. Pure and deterministic: the command
 * that embeds them and the projection that stores them cut the same passages.
 */
export interface Passage {
  /** Character offsets in the content. */
  start: number
  end: number
}

/** Words a passage holds at most. */
export const PASSAGE_WORDS = 50

/** A sentence, or a line of a table (a row is never cut at the point in "3.5"). */
const SENTENCE = /(?<![^\n])\|[^\n]*(?:\n+|$)\s*|[^.!?\n]+(?:[.!?]+["')\]]*|\n+|$)\s*/g
const WORD = /\S+\s*/g

const words = (text: string) => text.match(WORD)?.length ?? 0

export const passagesOf = (content: string, budget = PASSAGE_WORDS): Passage[] => {
  const out: Passage[] = []
  let start = -1
  let end = 0
  let count = 0
  const close = () => {
    if (start >= 0 && content.slice(start, end).trim()) out.push({ start, end })
    start = -1
    count = 0
  }
  for (const s of content.matchAll(SENTENCE)) {
    const at = s.index ?? 0
    const n = words(s[0])
    if (n > budget) {
      close()
      let piece = 0
      let pieceStart = at
      for (const w of s[0].matchAll(WORD)) {
        if (piece === budget) {
          out.push({ start: pieceStart, end: at + (w.index ?? 0) })
          pieceStart = at + (w.index ?? 0)
          piece = 0
        }
        piece++
      }
      out.push({ start: pieceStart, end: at + s[0].length })
      continue
    }
    if (n === 0) {
      if (start >= 0) end = at + s[0].length
      continue
    }
    if (count + n > budget) close()
    if (start < 0) start = at
    end = at + s[0].length
    count += n
  }
  close()
  return out
}

export interface IndexedPassage extends Passage {
  /** The chunk it stands for: the last one starting at or before it (inside it, since chunks are longer). */
  chunkIndex: number
  /** Its words as the model reads them: with its table's header first when it starts among a table's rows. */
  text: string
}

/**
 * The passages of an entry's vector index: passages of `words` words for a model that reads
 * little (the embedder's `passageWords`), or one per chunk for a model that reads a whole chunk.
 */
export const entryPassages = (
  content: string,
  chunks: ReadonlyArray<{ start: number; end: number }>,
  words: number | undefined,
): IndexedPassage[] => {
  if (chunks.length === 0) return []
  const piece = pieceText(content)
  const text = (p: Passage) => piece(p.start, p.end)
  if (words === undefined)
    return chunks.map((c, chunkIndex) => ({ start: c.start, end: c.end, chunkIndex, text: text(c) }))
  let c = 0
  return passagesOf(content, words).map((p) => {
    while (c + 1 < chunks.length && chunks[c + 1].start <= p.start) c++
    return { ...p, chunkIndex: c, text: text(p) }
  })
}

/** A line of prose has this many words at least, three of them lowercase words in a row. */
const PROSE_LINE_WORDS = 6
const WORDS_IN_A_ROW = /\p{Ll}{2,}[,;:]?\s+\p{Ll}{2,}[,;:]?\s+\p{Ll}{2,}/u

/**
 * Whether a passage is mostly prose (half its words in lines of prose), not a fragment of an
 * option list, a signature or a table: what a sentence embedding model reads well.
 */
export const isProse = (text: string) => {
  let prose = 0
  let all = 0
  for (const line of text.split('\n')) {
    const n = words(line)
    all += n
    if (n >= PROSE_LINE_WORDS && WORDS_IN_A_ROW.test(line)) prose += n
  }
  return all > 0 && prose * 2 >= all
}
