import { stemmer } from 'stemmer'

/**
 * The part of a result that answers: the sentence (or two) of its chunk that best match the query,
 * and where the query's words are in it. Offsets are into the result's `content`, in UTF-16 code
 * units (JavaScript string indices), so `content.slice(start, end)` is `text`; never HTML.
 */
export interface Highlight {
  text: string
  start: number
  end: number
  /** The query's words found, each as an offset range in `content`. */
  terms: Array<{ start: number; end: number }>
}

/** A highlight longer than this is cut around its matches. */
const MAX_CHARS = 320

const WORD = /[\p{L}\p{N}_]+/gu
// A sentence ends at . ! or ? before white space (not inside `shutil.copy` or `3.11`), or at a line's end.
const SENTENCE = /(?:[^.!?\n]|[.!?]+(?=[^\s.!?]))+(?:[.!?]+["')\]]*|\n+|$)/g

// Words that match everywhere and say nothing about what was asked.
const STOP = new Set(
  (
    'a an and are as at be by can do does for from has have how i if in into is it its my no not of on or so ' +
    'that the their then there ' +
    'these this to was what when where which who why will with you your'
  ).split(' '),
)

/** A word as matched: lower case, English words stemmed (others, such as words of other scripts, as they are). */
const stem = (word: string) => {
  const lower = word.toLowerCase()
  return /^[a-z]+$/.test(lower) ? stemmer(lower) : lower
}

/** The query's words as matched, without the ones that say nothing. */
export const queryStems = (query: string) =>
  new Set(
    [...query.normalize('NFKC').matchAll(WORD)]
      .map((m) => m[0])
      .filter((w) => !STOP.has(w.toLowerCase()))
      .map(stem),
  )

interface Sentence {
  start: number
  end: number
  terms: Array<{ start: number; end: number; stem: string }>
}

const sentencesOf = (content: string, stems: Set<string>): Sentence[] =>
  [...content.matchAll(SENTENCE)]
    .map((m) => {
      const start = (m.index ?? 0) + (m[0].length - m[0].trimStart().length)
      const text = m[0].trim()
      const terms = [...text.matchAll(WORD)]
        .filter((w) => stems.has(stem(w[0].normalize('NFKC'))))
        .map((w) => ({
          start: start + (w.index ?? 0),
          end: start + (w.index ?? 0) + w[0].length,
          stem: stem(w[0].normalize('NFKC')),
        }))
      return { start, end: start + text.length, terms }
    })
    .filter((s) => s.end > s.start)

/** Distinct query words a span holds, then how many matches: what makes one sentence answer better than another. */
const weigh = (terms: Sentence['terms']) => new Set(terms.map((t) => t.stem)).size + terms.length / 100

/**
 * The best-matching sentence of `content`, joined by the next one when both match; cut to about
 * MAX_CHARS around its matches. With no query word in the content (a result found by meaning
 * alone), the sentences of `near` (a passage's offsets, the one most similar to the query) stand in.
 */
export const highlight = (
  content: string,
  query: string,
  near?: { start: number; end: number },
): Highlight | undefined => {
  const sentences = sentencesOf(content, queryStems(query))
  if (sentences.length === 0) return undefined
  let best = 0
  sentences.forEach((s, i) => {
    if (weigh(s.terms) > weigh(sentences[best].terms)) best = i
  })
  let picked = [sentences[best]]
  if (sentences[best].terms.length === 0) {
    if (!near) return undefined
    picked = sentences.filter((s) => s.end > near.start && s.start < near.end)
    if (picked.length === 0) return undefined
  } else if (
    sentences[best + 1]?.terms.length &&
    weigh([...sentences[best].terms, ...sentences[best + 1].terms]) > weigh(sentences[best].terms)
  ) {
    picked = [sentences[best], sentences[best + 1]]
  }
  let start = picked[0].start
  let end = picked[picked.length - 1].end
  const terms = picked.flatMap((s) => s.terms)
  if (end - start > MAX_CHARS) {
    // Around the matches: from a little before the first, as far as the budget allows.
    const from = terms.length ? Math.max(start, terms[0].start - 60) : start
    start = whole(content, wordStart(content, from, start), 1)
    end = whole(content, Math.min(end, wordEnd(content, start + MAX_CHARS)), -1)
  }
  return {
    text: content.slice(start, end),
    start,
    end,
    terms: terms.filter((t) => t.start >= start && t.end <= end).map(({ start: s, end: e }) => ({ start: s, end: e })),
  }
}

/** `at` moved off the middle of a surrogate pair (forwards or backwards), so no character is cut in two. */
const whole = (content: string, at: number, step: 1 | -1) =>
  /[\uDC00-\uDFFF]/.test(content[at] ?? '') ? at + step : at

/** `at` moved back to the start of the word it falls in (not before `floor`). */
const wordStart = (content: string, at: number, floor: number) => {
  let i = at
  while (i > floor && /[\p{L}\p{N}_]/u.test(content[i - 1])) i--
  return i
}

/** `at` moved back to the end of the last whole word before it. */
const wordEnd = (content: string, at: number) => {
  let i = at
  while (i > 0 && i < content.length && /[\p{L}\p{N}_]/u.test(content[i])) i--
  return i
}
