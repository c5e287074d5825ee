import { createTwoFilesPatch, diffLines } from 'diff'

// Line diffs of page versions (the `diff` library, Myers' algorithm). A diff that would take
// longer than DIFF_TIMEOUT_MS counts as every line removed and added: an upper bound, never a hang.
const DIFF_TIMEOUT_MS = 1000
const lineCount = (s: string) => (s === '' ? 0 : s.replace(/\n$/, '').split('\n').length)

/** The size of a change: lines added and removed (`+N -N`). */
export const changeSize = (before: string, after: string) => {
  const changes = diffLines(before, after, { ignoreNewlineAtEof: true, timeout: DIFF_TIMEOUT_MS })
  if (!changes) return { added: lineCount(after), removed: lineCount(before) }
  let added = 0
  let removed = 0
  for (const c of changes) {
    if (c.added) added += c.count
    else if (c.removed) removed += c.count
  }
  return { added, removed }
}

/** Text that ends its last line (no "\ No newline at end of file" markers); empty stays empty, with no line at all. */
const lined = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`)

/** A unified diff between two versions, labelled with their names. */
export const unifiedDiff = (before: string, after: string, from: string, to: string) =>
  createTwoFilesPatch(from, to, lined(before), lined(after), undefined, undefined, {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  }) ?? `--- ${from}\n+++ ${to}\n(the diff is too large to compute)\n`

/** A page's content with `text` appended as a new paragraph. */
export const appended = (content: string, text: string) =>
  content === '' ? text : `${content.replace(/\n+$/, '')}\n\n${text}`
