import { outsideFences } from './markdown'

// Tables: the parsers write a document's tables (HTML, DOCX, a PDF's ruled tables) as Markdown tables,
// so one reading of the content serves every type. A table's rows are the units a chunk or a passage
// never cuts, and a piece of content that starts among its rows is read with the table's header before
// it (indexed, embedded and served), so a row is never without the names of its columns. Pure.

/** One cell as a Markdown table holds it: one line, its pipes escaped, never empty. */
const cell = (text: string) => text.replace(/\s+/g, ' ').trim().replace(/\|/g, '\\|') || ' '

/**
 * Rows of cells as a Markdown table, the first row its header, every row as wide as the widest; '' for
 * what is not a table of data (fewer than two rows or two columns: a layout table, read as text).
 */
export const markdownTable = (rows: string[][]): string => {
  const kept = rows.filter((r) => r.some((c) => c.trim()))
  const width = Math.max(0, ...kept.map((r) => r.length))
  if (kept.length < 2 || width < 2) return ''
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`
  return [line(kept[0]), `|${' --- |'.repeat(width)}`, ...kept.slice(1).map(line)].join('\n')
}

const ROW = /^ {0,3}\|.*\|[ \t]*$/
const DELIMITER = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*$/

export interface TableBlock {
  /** Offsets in the content: where the header row starts, where the first body row starts, where the table ends. */
  start: number
  body: number
  end: number
  /** The header row and its delimiter row, as written. */
  header: string
}

/** The content's Markdown tables (a header row, a delimiter row, body rows), outside fenced code. */
export const tablesOf = (content: string): TableBlock[] => {
  if (!content.includes('|')) return []
  const lines = content.split('\n')
  const starts: number[] = []
  for (let i = 0, at = 0; i < lines.length; at += lines[i++].length + 1) starts.push(at)
  const open = new Set<number>()
  for (const { index } of outsideFences(lines)) open.add(index)
  const out: TableBlock[] = []
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!open.has(i) || !open.has(i + 1) || !ROW.test(lines[i]) || !DELIMITER.test(lines[i + 1])) continue
    let j = i + 2
    while (j < lines.length && open.has(j) && ROW.test(lines[j])) j++
    if (j === i + 2) continue
    const end = starts[j - 1] + lines[j - 1].length
    out.push({ start: starts[i], body: starts[i + 2], end, header: `${lines[i]}\n${lines[i + 1]}` })
    i = j - 1
  }
  return out
}

/**
 * The header a piece of the content starting at an offset is read with: its table's header rows when the
 * offset is among the table's body rows, else ''. Built once per content.
 */
export const tableHeaderAt = (content: string): ((offset: number) => string) => {
  const tables = tablesOf(content)
  if (tables.length === 0) return () => ''
  return (offset) => tables.find((t) => offset >= t.body && offset < t.end)?.header ?? ''
}

/**
 * The text of a piece of the content (a chunk, a passage) as it is stored, indexed, embedded and served: with its
 * table's header rows before it when it starts among a table's rows. Built once per content.
 */
export const pieceText = (content: string): ((start: number, end: number) => string) => {
  const headerAt = tableHeaderAt(content)
  return (start, end) => {
    const header = headerAt(start)
    return header ? `${header}\n${content.slice(start, end)}` : content.slice(start, end)
  }
}
