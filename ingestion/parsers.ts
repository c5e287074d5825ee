import { Readability } from '@mozilla/readability'
import { TextDecoder as WhatwgDecoder } from '@exodus/bytes/encoding.js'
import sniffHTMLEncoding from 'html-encoding-sniffer'
import { JSDOM, VirtualConsole } from 'jsdom'
import mammoth from 'mammoth'
import yauzl from 'yauzl'
import { DOCX, IMAGE_TYPES, knownCharset, textEncoding } from './sniff'
import { markdownTable } from './tables'
import { imageText } from './ocr'
import { ParseError } from './parseError'
import { type PdfProgress, pdfText } from './pdf'
import { type DocNode, cleanTitle, docxCoreTitle, firstHeading, markdownTitle, rawText } from './titles'

export { ParseError }

/**
 * Text extraction for each supported type. These run inside a parser worker (ingestion/parserPool.ts)
 * that the service kills when a parse runs too long or uses too much memory.
 */
export interface ParseInput {
  mimeType: string
  bytes: Uint8Array
  /** Where an HTML page came from: its links resolve against it. */
  url?: string
  /** The encoding declared for a text (a web server's or an upload part's Content-Type charset). */
  charset?: string
}

export interface Parsed {
  text: string
  /** The title the document gives itself (its properties, else its first heading), if any. */
  title?: string
  /** Absolute http(s) links of an HTML page, for crawling. */
  links: string[]
  /** What of the document gave no text, each with why (a scanned page OCR could not read). */
  warnings?: string[]
}

/** How far a long parse has got (a PDF's pages read by OCR). */
export type ParseProgress = PdfProgress

export const MAX_TEXT_CHARS = 500_000
export const DOCX_LIMITS = { entries: 1000, uncompressedBytes: 50 * 1024 * 1024 }

/** What a library's complaint about a damaged DOCX means for its owner. */
const docxDamage = (message: string) =>
  /size mismatch|uncompressed data size/i.test(message)
    ? 'the DOCX is damaged: its compressed data does not match its declared size'
    : /xmldom|xml|unexpected close tag|unclosed|attribute/i.test(message)
      ? 'the DOCX is damaged: its document text is not well-formed XML'
      : /corrupt|end of data|signature|invalid|crc32|zip/i.test(message)
        ? 'the DOCX is damaged: its zip structure is broken'
        : 'the DOCX could not be read: it is damaged, or not a Word document'

export const utf8 = (bytes: Uint8Array) => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes)
  } catch {
    throw new ParseError('the file is not valid UTF-8 text')
  }
}

/**
 * Reads only the zip's central directory: a bomb is refused before anything is inflated. */
const checkZip = (bytes: Uint8Array) =>
  new Promise<{ title?: string }>((resolve, reject) => {
    yauzl.fromBuffer(Buffer.from(bytes), { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error || !zip)
        return reject(new ParseError('the DOCX is damaged: its zip structure is broken', error?.message))
      if (zip.entryCount > DOCX_LIMITS.entries) {
        zip.close()
        return reject(
          new ParseError(`the DOCX has ${zip.entryCount} zip entries, over the limit of ${DOCX_LIMITS.entries}`),
        )
      }
      let total = 0
      let document = false
      let title: string | undefined
      zip.on('entry', async (entry: yauzl.Entry) => {
        total += entry.uncompressedSize
        if (entry.fileName === 'word/document.xml') document = true
        if (total > DOCX_LIMITS.uncompressedBytes) {
          zip.close()
          return reject(new ParseError(`the DOCX expands to more than ${DOCX_LIMITS.uncompressedBytes} bytes`))
        }
        // The core properties' title, read (small, and counted above) as the directory is walked.
        if (entry.fileName === 'docProps/core.xml') title = await docxCoreTitle(zip, entry)
        zip.readEntry()
      })
      zip.on('end', () =>
        document
          ? resolve({ title })
          : reject(new ParseError('the zip file is not a DOCX document (no word/document.xml)')),
      )
      zip.on('error', (e: Error) => reject(new ParseError(docxDamage(e.message), e.message)))
      zip.readEntry()
    })
  })

const docx = async (bytes: Uint8Array): Promise<Parsed> => {
  const core = await checkZip(bytes)
  try {
    // mammoth never reads linked files unless externalFileAccess is set. One read of the document
    // gives its raw text (as extractRawText writes it) and its first heading; no HTML is written.
    let text = ''
    let heading: string | undefined
    await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes) },
      {
        transformDocument: (document: DocNode) => {
          text = rawText(document)
          heading = core.title ? undefined : firstHeading(document)
          return { ...document, children: [] }
        },
      },
    )
    return { text: text.trim(), title: core.title ?? heading, links: [] }
  } catch (error) {
    throw new ParseError(docxDamage((error as Error).message), (error as Error).message)
  }
}

const BLOCKS = 'p,div,section,article,header,footer,li,tr,h1,h2,h3,h4,h5,h6,pre,blockquote,br,hr,table,ul,ol,dl,dt,dd'

/**
 * Text of a DOM subtree with a line break after each block, so paragraphs do not run together; a
 * heading (h1-h6) is a line of its own written as Markdown writes it (`## Installation`), which
 * gives the chunks under it their section (headings.ts), and a table of data a Markdown table (tables.ts).
 */
const blockText = (root: Element | DocumentFragment) => {
  // Inner tables first: an outer table's cell then holds its inner table's text.
  for (const table of [...root.querySelectorAll('table')].reverse()) {
    const rows = [...(table as HTMLTableElement).rows].map((row) =>
      [...row.cells].flatMap((c) => [c.textContent ?? '', ...Array<string>(Math.max(0, c.colSpan - 1)).fill('')]),
    )
    const markdown = markdownTable(rows)
    if (markdown) table.replaceWith(root.ownerDocument!.createTextNode(`\n${markdown}\n\n`))
  }
  for (const el of root.querySelectorAll('h1,h2,h3,h4,h5,h6')) {
    const text = (el.textContent ?? '').replace(/\s+/g, ' ').trim()
    if (text) el.textContent = `\n${'#'.repeat(Number(el.tagName[1]))} ${text}`
  }
  for (const el of root.querySelectorAll(BLOCKS)) el.append(root.ownerDocument!.createTextNode('\n'))
  return (root.textContent ?? '')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

/**
 * Text in the encoding its byte-order mark names, else UTF-8 when it is valid UTF-8, else the
 * declared one (a web server's, or an upload part's Content-Type charset): textEncoding.
 */
const decodeText = (bytes: Uint8Array, declared: string | undefined) => {
  if (declared && !knownCharset(declared))
    throw new ParseError(`the declared charset ${declared} is not one this service reads`)
  // The WHATWG Encoding Standard's decoders: Node's own reads windows-1252 as Latin-1 (0x80-0x9F lost).
  const decoder = new WhatwgDecoder(textEncoding(bytes, declared), { fatal: true })
  if (decoder.encoding === 'utf-8') return utf8(bytes)
  try {
    return decoder.decode(bytes)
  } catch {
    throw new ParseError(`the content is not valid ${decoder.encoding} text`)
  }
}

/**
 * An HTML page's encoding: a byte-order mark, else the server's charset, else a <meta charset> in
 * its first 1,024 bytes (the HTML Standard's sniffing), else UTF-8.
 */
const htmlText = (bytes: Uint8Array, charset: string | undefined) =>
  decodeText(bytes, sniffHTMLEncoding(bytes, { transportLayerEncodingLabel: charset, defaultEncoding: 'UTF-8' }))

/** jsdom runs no scripts and fetches no subresources by default; readability finds the article. */
const html = (bytes: Uint8Array, url?: string, charset?: string): Parsed => {
  const dom = new JSDOM(htmlText(bytes, charset), {
    url: url ?? 'https://upload.invalid/',
    virtualConsole: new VirtualConsole(),
  })
  const { document } = dom.window
  const links = [...document.querySelectorAll('a[href]')]
    .map((a) => (a as HTMLAnchorElement).href)
    .filter((href) => /^https?:\/\//.test(href))
  const title = cleanTitle(document.title) ?? cleanTitle(document.querySelector('h1')?.textContent)
  for (const el of document.querySelectorAll('script,style,noscript,template')) el.remove()
  const article = new Readability(document.cloneNode(true) as Document).parse()
  let text = ''
  if (article?.content) {
    const holder = document.createElement('div')
    holder.innerHTML = article.content
    text = blockText(holder)
  }
  if (!text && document.body) text = blockText(document.body)
  dom.window.close()
  return { text, title, links }
}

export const parse = async (input: ParseInput, progress?: ParseProgress): Promise<Parsed> => {
  let parsed: Parsed
  switch (input.mimeType) {
    case 'application/pdf': {
      const { text, title, warnings } = await pdfText(input.bytes, progress)
      parsed = { text, title, links: [], ...(warnings.length ? { warnings } : {}) }
      break
    }
    case DOCX:
      parsed = await docx(input.bytes)
      break
    case 'text/html':
      parsed = html(input.bytes, input.url, input.charset)
      break
    case 'text/markdown': {
      const text = decodeText(input.bytes, input.charset).trim()
      parsed = { text, title: markdownTitle(text), links: [] }
      break
    }
    case 'text/plain':
      parsed = { text: decodeText(input.bytes, input.charset).trim(), links: [] }
      break
    default:
      if (!IMAGE_TYPES.includes(input.mimeType)) throw new ParseError(`${input.mimeType} is not a supported type`)
      parsed = { text: await imageText(input.bytes, input.mimeType), links: [] }
  }
  // Postgres text cannot hold NUL, which some PDFs' text layers contain.
  parsed.text = parsed.text.replace(/\u0000/g, '')
  if (parsed.text.length > MAX_TEXT_CHARS)
    throw new ParseError(`the extracted text is ${parsed.text.length} characters, over the limit of ${MAX_TEXT_CHARS}`)
  return parsed
}
