// Markdown as the title and section rules read it: the lines outside fenced code, ATX headings, and
// a heading's text without its inline markup.

/** A Markdown heading's text without its inline markup (links keep their text, code and emphasis their words). */
export const plainInline = (s: string) =>
  s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`+([^`]*)`+/g, '$1')
    .replace(/(\*\*|__|\*|_|~~)(\S(?:.*?\S)?)\1/g, '$2')

/** An ATX heading line (`## Text ##`): its level and its text as written; undefined for any other line. */
export const atxHeading = (line: string) => {
  const m = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*\r?$/.exec(line)
  return m ? { level: m[1].length, text: m[2] } : undefined
}

/** The lines (from `from` on) that are not inside a fenced code block, nor its fences, with their indexes. */
export function* outsideFences(lines: string[], from = 0): Generator<{ line: string; index: number }> {
  let fence: string | undefined
  for (let index = from; index < lines.length; index++) {
    const line = lines[index]
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (marker) {
      if (!fence) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
    } else if (!fence) yield { line, index }
  }
}
