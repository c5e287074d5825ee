import { type OutlineNode, PDFParse, type TableArray } from 'pdf-parse'
import { type Read, OCR_LIMITS, ocrReader } from './ocr'
import { ParseError } from './parseError'
import { markdownTable } from './tables'
import { cleanTitle, pdfTitle } from './titles'

// A PDF's text as the other types give theirs: pages of its text layer, its ruled tables as Markdown tables,
// its outline's entries as Markdown headings, and pages with no text layer (scans) read by OCR.

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
 * A page's text with its ruled tables (pdf.js's drawing operators, read by pdf-parse) written as Markdown
 * tables: each in place of the lines that held its rows, or after the page's text when its rows were not
 * found as lines (a cell's text wrapped over several lines).
 */
export const withTables = (text: string, tables: TableArray[]) => {
  let lines = text.split('\n')
  const after: string[] = []
  for (const rows of tables) {
    const markdown = markdownTable(rows)
    if (!markdown) continue
    const found: number[] = []
    for (const row of rows) {
      const at = lines.findIndex((l, i) => i > (found[found.length - 1] ?? -1) && loose(l) === loose(row.join(' ')))
      if (at >= 0) found.push(at)
    }
    if (found.length === rows.length && found[found.length - 1] - found[0] < rows.length * 2)
      lines = [...lines.slice(0, found[0]), markdown, ...lines.slice(found[found.length - 1] + 1)]
    else after.push(markdown)
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
    const { pages } = await parser.getText()
    const { pages: tablePages } = await parser
      .getTable()
      .catch(() => ({ pages: [] as { num: number; tables: TableArray[] }[] }))
    const textless = pages.filter((p) => !p.text.trim()).map((p) => p.num)
    const { texts, unread } = await scannedPages(parser, textless, progress)
    const text = pages
      .map((p) => texts.get(p.num) ?? withTables(p.text.trim(), tablePages.find((t) => t.num === p.num)?.tables ?? []))
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
