import { atxHeading, outsideFences, plainInline } from './markdown'

// Sections: where a passage of an entry's content stands under its headings. The parsers write a
// document's headings as Markdown does (`#` to `######`, HTML h1-h6 and DOCX heading styles alike),
// so one reading of the content serves every type. Pure: the command that embeds passages and the
// projection that stores them find the same paths.

/** Between the headings of a path, as shown: "Installation › Linux". */
export const PATH_SEPARATOR = ' › '

/** A heading's text is cut to this many characters in a path. */
const HEADING_CHARS = 120

interface Heading {
  start: number
  level: number
  text: string
}

/** The content's ATX headings (`# ...` to `###### ...`), outside fenced code blocks, in order. */
export const headingsOf = (content: string): Heading[] => {
  const lines = content.split('\n')
  const starts: number[] = []
  for (let i = 0, at = 0; i < lines.length; at += lines[i++].length + 1) starts.push(at)
  const out: Heading[] = []
  for (const { line, index } of outsideFences(lines)) {
    const atx = atxHeading(line)
    const text = atx ? plainInline(atx.text).replace(/\s+/g, ' ').trim().slice(0, HEADING_CHARS) : ''
    if (atx && text) out.push({ start: starts[index], level: atx.level, text })
  }
  return out
}

/**
 * The heading path in force at an offset of the content (the headings above it, each under the
 * nearest one of a higher level), or '' before the first heading. Built once per content.
 */
export const headingPathAt = (content: string): ((offset: number) => string) => {
  const headings = headingsOf(content)
  const paths: string[] = []
  const stack: Heading[] = []
  for (const h of headings) {
    while (stack.length > 0 && stack[stack.length - 1].level >= h.level) stack.pop()
    stack.push(h)
    paths.push(stack.map((s) => s.text).join(PATH_SEPARATOR))
  }
  return (offset) => {
    // The last heading that starts at or before the offset.
    let lo = 0
    let hi = headings.length - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (headings[mid].start <= offset) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return found < 0 ? '' : paths[found]
  }
}

/**
 * What a passage is about, for its vector: the entry's title and the passage's heading path, the
 * path's first headings left out where they only say the title again ("# Numbats" in "Numbats").
 */
export const subjectOf = (title: string, path: string) => {
  const headings = path ? path.split(PATH_SEPARATOR) : []
  const same = (h: string) => h.toLowerCase() === title.trim().toLowerCase()
  while (headings.length > 0 && same(headings[0])) headings.shift()
  return [title, ...headings].join(PATH_SEPARATOR)
}
