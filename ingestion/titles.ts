import type { InfoResult } from 'pdf-parse'
import type yauzl from 'yauzl'
import { atxHeading, outsideFences, plainInline } from './markdown'
import { markdownTable } from './tables'

// What a document says its title is: a Markdown or DOCX heading, a DOCX's or a PDF's properties,
// an HTML <title>. An upload the client gave no title is named by it (ingestion's worker).

/** A title as shown: one line, no runs of spaces; nothing where a document's title is blank or a placeholder. */
export const cleanTitle = (raw: string | null | undefined) => {
  const title = (raw ?? '').replace(/\s+/g, ' ').trim()
  return title && !/^untitled( document)?$/i.test(title) ? title : undefined
}

/**
 * A Markdown document's first level-1 heading (`# Title`, or a line underlined with `===`), outside
 * fenced code blocks and front matter.
 */
export const markdownTitle = (text: string) => {
  const lines = text.split(/\r?\n/)
  let start = 0
  if (/^---\s*$/.test(lines[0] ?? '')) {
    const end = lines.findIndex((l, i) => i > 0 && /^(---|\.\.\.)\s*$/.test(l))
    if (end > 0) start = end + 1
  }
  for (const { line, index: i } of outsideFences(lines, start)) {
    const atx = atxHeading(line)
    if (atx) {
      const title = atx.level === 1 ? cleanTitle(plainInline(atx.text)) : undefined
      if (title) return title
      continue
    }
    if (/^ {0,3}=+[ \t]*$/.test(lines[i + 1] ?? '') && line.trim() && !/^ {4}/.test(line)) {
      const title = cleanTitle(plainInline(line))
      if (title) return title
    }
  }
  return undefined
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

/** XML text with its character references read. */
const xmlText = (s: string) =>
  s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref] ?? m
    const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1))
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m
  })

/** The title in a DOCX's core properties (docProps/core.xml, `<dc:title>`). */
export const coreTitle = (coreXml: string) => {
  const match = /<dc:title(?:\s[^>]*)?>([\s\S]*?)<\/dc:title>/.exec(coreXml)
  return match ? cleanTitle(xmlText(match[1])) : undefined
}

/** The most of docProps/core.xml read for its title: it holds a few properties. */
const CORE_MAX_BYTES = 64 * 1024

/** The title in a DOCX's core properties entry, read from its zip; none where it is large or unreadable. */
export const docxCoreTitle = (zip: yauzl.ZipFile, entry: yauzl.Entry) =>
  new Promise<string | undefined>((resolve) => {
    if (entry.uncompressedSize > CORE_MAX_BYTES) return resolve(undefined)
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream) return resolve(undefined)
      const parts: Buffer[] = []
      stream.on('data', (b: Buffer) => parts.push(b))
      stream.on('error', () => resolve(undefined))
      stream.on('end', () => resolve(coreTitle(Buffer.concat(parts).toString('utf8'))))
    })
  })

/** A PDF's title from its properties (pdf-parse's getInfo): its XMP dc:title, else its Info dictionary's Title. */
export const pdfTitle = (properties: Pick<InfoResult, 'info' | 'metadata'> | undefined) =>
  cleanTitle(properties?.metadata?.get('dc:title')) ??
  cleanTitle(typeof properties?.info?.Title === 'string' ? properties.info.Title : undefined)

/** A node of mammoth's document tree (what its transformDocument option is given). */
export interface DocNode {
  type: string
  value?: string
  styleName?: string | null
  styleId?: string | null
  /** A table cell's width in columns. */
  colSpan?: number
  children?: DocNode[]
}

const HEADING = /^(title|heading ?[1-6])$/i

/**
 * A subtree's text as mammoth's extractRawText writes it (a paragraph ends with a blank line), except
 * that a paragraph styled as the title or a heading is written as a Markdown heading (`## Installation`,
 * the title at level 1): the chunks under it know their section (headings.ts); and a table of data is
 * written as a Markdown table (tables.ts).
 */
export const rawText = (node: DocNode): string => {
  if (node.type === 'text') return node.value ?? ''
  if (node.type === 'tab') return '\t'
  if (node.type === 'table') {
    const rows = (node.children ?? [])
      .filter((r) => r.type === 'tableRow')
      .map((r) =>
        (r.children ?? [])
          .filter((c) => c.type === 'tableCell')
          .flatMap((c) => [rawText(c), ...Array<string>(Math.max(0, (c.colSpan ?? 1) - 1)).fill('')]),
      )
    const markdown = markdownTable(rows)
    if (markdown) return `${markdown}\n\n`
  }
  const inner = (node.children ?? []).map(rawText).join('')
  if (node.type !== 'paragraph') return inner
  const style = HEADING.exec(node.styleName ?? node.styleId ?? '')?.[1]
  const heading = inner.replace(/\s+/g, ' ').trim()
  if (!style || !heading) return `${inner}\n\n`
  return `${'#'.repeat(Number(/[1-6]/.exec(style)?.[0] ?? 1))} ${heading}\n\n`
}

/** The text of a DOCX's first paragraph styled as its title or a heading. */
export const firstHeading = (node: DocNode): string | undefined => {
  if (node.type === 'paragraph')
    return HEADING.test(node.styleName ?? node.styleId ?? '')
      ? cleanTitle((node.children ?? []).map(rawText).join(''))
      : undefined
  for (const child of node.children ?? []) {
    const found = firstHeading(child)
    if (found) return found
  }
  return undefined
}
