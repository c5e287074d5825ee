import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as c from '../codecs'

// Reading part of a long text, as the tools that read an entry or a page take it and answer it, as
// io-ts codecs: an answer is encoded by its tool's codec (unknown fields dropped), and the same codec
// gives the tool's outputSchema, so what is declared is what is served.

const d = c.described

/** A Markdown heading's text, from its line. */
const HEADING = /^(#{1,6})[ \t]+(.+?)[ \t#]*$/gm

/** Reading part of a long text: a section by its heading, or a character range. */
export const rangeArguments = {
  section: c.line(1, 500),
  offset: c.integer(0, 10_000_000),
  maxChars: c.integer(100, 100_000),
}

export const rangeNotes = {
  section: 'Read only the Markdown section under this heading (its text, any case); a cut answer lists the headings',
  offset:
    'Start reading at this character of the text (of the section, with section); 0 is the start; ' +
    'a cut answer names the next offset',
  maxChars: 'Read at most this many characters, 100-100000 (default 8000, about 2,000 tokens)',
}

const DEFAULT_CHARS = 8000

export const rangeFields = {
  content: d(t.string, 'The text read: all of it, or the part asked for'),
  range: d(
    c.object({
      start: d(t.number, 'Where the text read starts (characters)'),
      end: d(t.number, 'Where it ends'),
      total: d(t.number, 'The length of the whole text'),
    }),
    'Which part of the whole text this is',
  ),
}

export const rangeOptional = {
  next: d(t.number, 'More follows: read on with offset set to this (and the same section, if any)'),
  sections: d(t.array(t.string), 'The headings of the whole text (when only part of it was read)'),
}

/**
 * The part of `text` that a read asks for, or why there is none: an unknown heading names the ones there are.
 */
export const readRange = (text: string, a: { section?: string; offset?: number; maxChars?: number }) => {
  const headings = [...text.matchAll(HEADING)].map((m) => ({ level: m[1].length, name: m[2], at: m.index ?? 0 }))
  // Offsets count from the start of what is read: the whole text, or the section.
  let base = 0
  let from = a.offset ?? 0
  let to = text.length
  if (a.section !== undefined) {
    const i = headings.findIndex((h) => h.name.toLowerCase() === a.section?.trim().toLowerCase())
    if (i === -1)
      return E.left(
        `section: no heading "${a.section}"; the headings are: ${headings.map((h) => h.name).join(', ') || '-'}`,
      )
    const after = headings.slice(i + 1).find((h) => h.level <= headings[i].level)
    base = headings[i].at
    from = base + (a.offset ?? 0)
    to = after?.at ?? text.length
  }
  let end = Math.min(to, from + (a.maxChars ?? DEFAULT_CHARS))
  // Never half of an emoji: a cut between a surrogate pair moves back before it.
  if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1
  const whole = from === 0 && end === text.length
  const start = Math.min(from, text.length)
  return E.right({
    content: text.slice(start, Math.max(start, end)),
    range: { start, end: Math.max(start, end), total: text.length },
    ...(end < to ? { next: end - base } : {}),
    ...(!whole && headings.length ? { sections: headings.slice(0, 100).map((h) => h.name) } : {}),
  })
}
