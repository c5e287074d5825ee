// A PDF's tables drawn without rules, found from where pdf.js places its text: lines of text split into cells at
// wide gaps, and a run of lines whose cells stand in the same columns read as a table. Pure.

/** A run of text as pdf.js gives it: its string, its baseline origin, its width and its font size, in points. */
export interface PlacedText {
  str: string
  x: number
  y: number
  width: number
  size: number
}

/** A gap this many font sizes wide parts two cells (a space between words is about a quarter of one). */
const CELL_GAP = 0.9
/** Items this close to a line's baseline, in font sizes, stand on that line. */
const SAME_LINE = 0.4
/** A table holds a header and two rows at least; fewer aligned lines are more often a layout than data. */
const MIN_ROWS = 3
/** Cells longer than this on average are columns of prose (a two-column page), not a table. */
const MAX_MEAN_CELL = 40
/** A first column holding only list markers is a list set with tab stops, not a table. */
const LIST_MARKER = /^(\d{1,3}[.)]|[a-z][.)]|[•·▪◦‣*–-])$/i

interface Cell {
  text: string
  from: number
  to: number
}

/** The page's lines, top to bottom, each its cells left to right. */
const cellLines = (items: PlacedText[]): { cells: Cell[]; size: number }[] => {
  const placed = items.filter((i) => i.str.trim() && i.size > 0).sort((a, b) => b.y - a.y || a.x - b.x)
  const lines: PlacedText[][] = []
  for (const item of placed) {
    const line = lines[lines.length - 1]
    if (line && Math.abs(line[0].y - item.y) <= SAME_LINE * Math.max(line[0].size, item.size)) line.push(item)
    else lines.push([item])
  }
  return lines.map((line) => {
    line.sort((a, b) => a.x - b.x)
    const size = Math.max(...line.map((i) => i.size))
    const cells: Cell[] = []
    for (const item of line) {
      const last = cells[cells.length - 1]
      const text = item.str.trim()
      if (last && item.x - last.to < CELL_GAP * size) {
        last.text += item.x - last.to > 0.1 * size ? ` ${text}` : text
        last.to = Math.max(last.to, item.x + item.width)
      } else cells.push({ text, from: item.x, to: item.x + item.width })
    }
    return { cells, size }
  })
}

interface Span {
  from: number
  to: number
}

const overlaps = (a: Span, b: Span) => a.from <= b.to && a.to >= b.from

/**
 * A line's cells placed in the columns so far, or nothing where they do not stand in them. As many cells as columns:
 * one in each, none reaching into a column beside its own (a column's cells may be set flush left, flush right or
 * centred, under a header set otherwise). Fewer (a row leaving a cell empty): each within the one column it overlaps.
 */
const placed = (columns: Span[], cells: Cell[]): (Cell | undefined)[] | undefined => {
  if (cells.length === columns.length)
    return cells.every(
      (c, i) => (i === 0 || c.from > columns[i - 1].to) && (i === cells.length - 1 || c.to < columns[i + 1].from),
    )
      ? cells
      : undefined
  if (cells.length < 2 || cells.length > columns.length) return undefined
  const row: (Cell | undefined)[] = columns.map(() => undefined)
  for (const cell of cells) {
    const hits = columns.flatMap((col, k) => (overlaps(cell, col) ? [k] : []))
    if (hits.length !== 1 || row[hits[0]]) return undefined
    row[hits[0]] = cell
  }
  return row
}

const isData = (rows: (Cell | undefined)[][]) => {
  const cells = rows.flat().filter((c) => c !== undefined)
  const mean = cells.reduce((n, c) => n + c.text.length, 0) / cells.length
  return mean <= MAX_MEAN_CELL && !rows.every((r) => r[0] && LIST_MARKER.test(r[0].text))
}

/**
 * The tables of a page: runs of lines whose cells (two or more a line) stand in the same columns, the first line's
 * cells making the columns.
 */
export const alignedTables = (items: PlacedText[]): string[][][] => {
  const lines = cellLines(items)
  const tables: string[][][] = []
  for (let i = 0; i < lines.length; ) {
    if (lines[i].cells.length < 2) {
      i++
      continue
    }
    const columns: Span[] = lines[i].cells.map(({ from, to }) => ({ from, to }))
    const rows: (Cell | undefined)[][] = [lines[i].cells]
    let j = i + 1
    for (let row = placed(columns, lines[j]?.cells ?? []); row; row = placed(columns, lines[++j]?.cells ?? [])) {
      row.forEach((c, k) => {
        if (c) columns[k] = { from: Math.min(columns[k].from, c.from), to: Math.max(columns[k].to, c.to) }
      })
      rows.push(row)
    }
    if (rows.length >= MIN_ROWS && isData(rows)) tables.push(rows.map((r) => r.map((c) => c?.text ?? '')))
    i = j
  }
  return tables
}
