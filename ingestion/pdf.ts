import { type OutlineNode, PDFParse, type TableArray } from 'pdf-parse'
import { type Read, OCR_LIMITS, ocrReader } from './ocr'
import { ParseError } from './parseError'
import { type PlacedText, alignedTables } from './pdfTables'
import { markdownTable } from './tables'
import { cleanTitle, pdfTitle } from './titles'

// A PDF's text as the other types give theirs: pages of its text layer, its tables (ruled, or set in aligned
// columns) as Markdown tables, its outline's entries as Markdown headings, and pages with no text layer (scans)
// read by OCR.

/** How far a PDF's reading has got: pages read by OCR, of those that need it. */
export type PdfProgress = (p: { page: number; of: number }) => void

export interface PdfText {
  text: string
  title?: string
  /** Pages that gave no text, each with why. */
  warnings: string[]
}

/** Words of a line compared loosely: one space between them, any case. */
const loose = (s: string) => s.replace(/\s+/g, ' ').trim().toLowerCase()

/**
 * A page's text with its tables written as Markdown tables, each in place of the lines that held its rows. A ruled
 * table (pdf.js's drawing operators, read by pdf-parse) whose rows were not found as lines (a cell's text wrapped
 * over several lines) goes after the page's text; a table of aligned columns only ever takes its rows' place.
 */
export const withTables = (text: string, ruled: TableArray[], aligned: string[][][] = []) => {
  let lines = text.split('\n')
  const after: string[] = []
  for (const [rows, placedOnly] of [
    ...ruled.map((t) => [t, false] as const),
    ...aligned.map((t) => [t, true] as const),
  ]) {
    const markdown = markdownTable(rows)
    if (!markdown) continue
    const found: number[] = []
    for (const row of rows) {
      const at = lines.findIndex((l, i) => i > (found[found.length - 1] ?? -1) && loose(l) === loose(row.join(' ')))
      if (at >= 0) found.push(at)
    }
    if (found.length === rows.length && found[found.length - 1] - found[0] < rows.length * 2)
      lines = [...lines.slice(0, found[0]), markdown, ...lines.slice(found[found.length - 1] + 1)]
    else if (!placedOnly) after.push(markdown)
  }
  return [...lines, ...after].join('\n').trim()
}

/** The outline's entries in order, each with its depth (1 for the top). */
const outlineEntries = (nodes: OutlineNode[] | null | undefined, depth = 1): { title: string; level: number }[] =>
  (nodes ?? []).flatMap((n) => [
    ...(n.title?.trim() ? [{ title: n.title.replace(/\s+/g, ' ').trim(), level: depth }] : []),
    ...outlineEntries(n.items as OutlineNode[], depth + 1),
  ])

/**
 * The text with each outline entry's line written as a Markdown heading of its depth: the entries are looked
 * for in order, each after the one before; an entry not found as a line of its own is left out.
 */
export const withOutline = (text: string, outline: { title: string; level: number }[]) => {
  const lines = text.split('\n')
  let from = 0
  for (const entry of outline) {
    const at = lines.findIndex((l, i) => i >= from && loose(l) === loose(entry.title))
    if (at < 0) continue
    lines[at] = `${'#'.repeat(Math.min(6, entry.level))} ${entry.title}`
    from = at + 1
  }
  return lines.join('\n')
}

/**
 * Between the text items pdf.js gives for a page, as pdf-parse joins them: a page whose lines hold items apart
 * (pdf.js sets a gap wider than a space apart as an item of its own, a single space) may hold a table; only those
 * pages are read again for their tables, so a page of prose costs nothing more.
 */
const ITEM = '\u001e'
const APART = `${ITEM} ${ITEM}`
const mayHoldTable = (joined: string) => joined.split('\n').filter((l) => l.includes(APART)).length >= 2

/** A page's text items with their places (pdf-parse reads the text, and keeps the pdf.js document it read). */
const placedText = async (parser: PDFParse, num: number): Promise<PlacedText[]> => {
  const doc = (parser as unknown as { doc?: PdfDocument }).doc
  if (!doc) return []
  const page = await doc.getPage(num)
  try {
    const { items } = await page.getTextContent()
    return items.flatMap((i) =>
      'str' in i && i.transform
        ? [
            {
              str: i.str,
              x: i.transform[4],
              y: i.transform[5],
              width: i.width,
              size: Math.hypot(i.transform[2], i.transform[3]),
            },
          ]
        : [],
    )
  } finally {
    page.cleanup()
  }
}

/** What of pdf.js's document this reads. */
interface PdfDocument {
  getPage(num: number): Promise<{
    getTextContent(): Promise<{ items: ({ str: string; transform?: number[]; width: number } | { type: string })[] }>
    cleanup(): void
  }>
}

/** Pages rendered for OCR this wide: about 200 dpi for a Letter or A4 page. */
const OCR_WIDTH = 1700

const pageWord = (pages: number[]) => (pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.join(', ')}`)

/** The pages with no text layer, read by OCR one by one; a page that cannot be read is a warning. */
const scannedPages = async (parser: PDFParse, pages: number[], progress: PdfProgress | undefined) => {
  const texts = new Map<number, string>()
  const unread = new Map<number, string>()
  const read = pages.slice(0, OCR_LIMITS.pages)
  if (read.length < pages.length)
    unread.set(
      pages[read.length],
      `${pages.length - read.length} pages from here on were not read: OCR reads ` +
        `${OCR_LIMITS.pages} pages of a PDF at most`,
    )
  if (read.length === 0) return { texts, unread }
  const reader = await ocrReader()
  try {
    for (const [i, page] of read.entries()) {
      progress?.({ page: i + 1, of: read.length })
      const shot = await parser.getScreenshot({ partial: [page], desiredWidth: OCR_WIDTH, imageDataUrl: false })
      const image = shot.pages[0]
      if (!image?.data || image.width * image.height > OCR_LIMITS.pixels) {
        unread.set(page, 'it could not be rendered as an image within the size OCR reads')
        continue
      }
      const got: Read = await reader
        .read(image.data)
        .catch(() => ({ text: '', unread: 'OCR could not read its image' }))
      if (got.text) texts.set(page, got.text)
      else unread.set(page, got.unread ?? 'nothing was read')
    }
  } finally {
    await reader.close().catch(() => {})
  }
  return { texts, unread }
}

export const pdfText = async (bytes: Uint8Array, progress?: PdfProgress): Promise<PdfText> => {
  // An embedded image over the size OCR reads is not decoded (a small file can hold a huge image), and no string
  // of the file is ever run as code (pdf.js's faster path for a PDF's functions).
  const parser = new PDFParse({ data: new Uint8Array(bytes), maxImageSize: OCR_LIMITS.pixels, isEvalSupported: false })
  try {
    const { pages: joined } = await parser.getText({ itemJoiner: ITEM })
    const pages = joined.map((p) => ({ num: p.num, text: p.text.replaceAll(ITEM, ''), gaps: p.text }))
    const tabular = pages.filter((p) => mayHoldTable(p.gaps)).map((p) => p.num)
    const ruled = tabular.length
      ? (await parser.getTable({ partial: tabular }).catch(() => ({ pages: [] }))).pages
      : ([] as { num: number; tables: TableArray[] }[])
    // A page's tables of aligned columns, where it has no ruled table (whose rows stand in columns too).
    const aligned = new Map<number, string[][][]>()
    for (const num of tabular)
      if (!ruled.some((t) => t.num === num && t.tables.length > 0))
        // A page whose places cannot be read keeps its text as it is: its tables are a bonus, not the reading.
        aligned.set(num, alignedTables(await placedText(parser, num).catch(() => [])))
    const textless = pages.filter((p) => !p.text.trim()).map((p) => p.num)
    const { texts, unread } = await scannedPages(parser, textless, progress)
    const text = pages
      .map(
        (p) =>
          texts.get(p.num) ??
          withTables(p.text.trim(), ruled.find((t) => t.num === p.num)?.tables ?? [], aligned.get(p.num)),
      )
      .filter(Boolean)
      .join('\n\n')
    const warnings = [...unread].map(([page, why]) => `${pageWord([page])} gave no text: ${why}`)
    if (!text.trim() && textless.length > 0)
      throw new ParseError(
        `no text could be read from the PDF: it has no text layer, and OCR read nothing on ${pageWord(textless)} ` +
          `(${[...unread.values()][0] ?? 'nothing was read'})`,
      )
    const info = await parser.getInfo().catch(() => undefined)
    const outline = outlineEntries(info?.outline)
    // Untitled in its properties: titled by its outline's first entry, as a Markdown document by its first heading.
    const title = pdfTitle(info) ?? cleanTitle(outline[0]?.title)
    return { text: withOutline(text, outline), title, warnings }
  } catch (error) {
    if (error instanceof ParseError) throw error
    const name = (error as Error).name
    if (name === 'PasswordException')
      throw new ParseError('the PDF is encrypted (password protected) and cannot be read')
    throw new ParseError('the PDF is damaged: its structure could not be read', (error as Error).message)
  } finally {
    await parser.destroy().catch(() => {})
  }
}
