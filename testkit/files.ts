// Real documents made by the tests themselves: PDFs with pdf-lib, DOCX files zipped by hand, images of pages
// drawn on a canvas.
import { createCanvas } from '@napi-rs/canvas'
import JSZip from 'jszip'
import { PDFDocument, PDFHexString, PDFName, type PDFRef, StandardFonts } from 'pdf-lib'

export const pdf = async (pages: string[]) => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (const text of pages) {
    const page = doc.addPage()
    const lines = text.match(/.{1,90}(\s|$)/g) ?? [text]
    lines.forEach((line, i) => page.drawText(line.trim(), { x: 40, y: 780 - i * 14, font, size: 10 }))
  }
  return Buffer.from(await doc.save())
}

export interface OutlineItem {
  title: string
  children?: OutlineItem[]
}

/** A PDF of lines of text, one page, with an outline (bookmarks) of these items, each pointing at the page. */
export const outlinedPdf = async (lines: string[], outline: OutlineItem[]) => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const page = doc.addPage([612, 792])
  lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 16, font, size: 11 }))
  const ctx = doc.context
  const level = (items: OutlineItem[], parent: PDFRef): PDFRef[] => {
    const refs = items.map(() => ctx.nextRef())
    items.forEach((item, i) => {
      const kids = item.children?.length ? level(item.children, refs[i]) : []
      const dict = ctx.obj({
        Title: PDFHexString.fromText(item.title),
        Parent: parent,
        Dest: [page.ref, 'XYZ', null, null, null],
        ...(i > 0 ? { Prev: refs[i - 1] } : {}),
        ...(i < items.length - 1 ? { Next: refs[i + 1] } : {}),
        ...(kids.length ? { First: kids[0], Last: kids[kids.length - 1], Count: kids.length } : {}),
      })
      ctx.assign(refs[i], dict)
    })
    return refs
  }
  const root = ctx.nextRef()
  const top = level(outline, root)
  ctx.assign(root, ctx.obj({ Type: 'Outlines', First: top[0], Last: top[top.length - 1], Count: top.length }))
  doc.catalog.set(PDFName.of('Outlines'), root)
  return Buffer.from(await doc.save())
}

/**
 * A PDF page of a heading, a line of text and a table whose first row is its header: ruled (a grid drawn around
 * each cell, as word processors print tables), or set in columns with no rules (as reports and papers print them;
 * the header in bold, numbers set flush right).
 */
export const tablePdf = async (heading: string, rows: string[][], { ruled = true } = {}) => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  const page = doc.addPage([612, 792])
  page.drawText(heading, { x: 40, y: 750, font, size: 16 })
  page.drawText('The figures below are the ones the team agreed on.', { x: 40, y: 725, font, size: 10 })
  const width = (612 - 80) / rows[0].length
  const top = 700
  rows.forEach((row, r) =>
    row.forEach((cell, c) => {
      const face = !ruled && r === 0 ? bold : font
      const right = !ruled && /^[\d.]+$/.test(cell) ? width - 16 - face.widthOfTextAtSize(cell, 10) : 0
      page.drawText(cell, { x: 44 + c * width + right, y: top - (r + 1) * 20 + 6, font: face, size: 10 })
    }),
  )
  const bottom = top - rows.length * 20
  for (let r = 0; ruled && r <= rows.length; r++)
    page.drawLine({ start: { x: 40, y: top - r * 20 }, end: { x: 572, y: top - r * 20 }, thickness: 0.5 })
  for (let c = 0; ruled && c <= rows[0].length; c++)
    page.drawLine({ start: { x: 40 + c * width, y: top }, end: { x: 40 + c * width, y: bottom }, thickness: 0.5 })
  page.drawText('Questions about these figures go to the finance team.', { x: 40, y: bottom - 30, font, size: 10 })
  return Buffer.from(await doc.save())
}

/** A page of printed lines drawn black on white, as a scanner gives it (no lines: a blank page). */
const drawnPage = (lines: string[]) => {
  const canvas = createCanvas(1275, 200 + lines.length * 60)
  const g = canvas.getContext('2d')
  g.fillStyle = 'white'
  g.fillRect(0, 0, canvas.width, canvas.height)
  g.fillStyle = 'black'
  g.font = '36px sans-serif'
  lines.forEach((line, i) => g.fillText(line, 80, 120 + i * 60))
  return { canvas, g }
}

/** A PNG or JPEG image of a page of printed lines. */
export const pageImage = (lines: string[], type: 'png' | 'jpeg' = 'png') => {
  const { canvas } = drawnPage(lines)
  return type === 'png' ? canvas.toBuffer('image/png') : canvas.toBuffer('image/jpeg')
}

/** An uncompressed 8-bit grey TIFF (baseline TIFF, one strip) of an image of a page of lines. */
export const pageTiff = (lines: string[]) => {
  const { canvas, g } = drawnPage(lines)
  const { width, height, data } = g.getImageData(0, 0, canvas.width, canvas.height)
  const entries: [number, number, number][] = [
    [256, 4, width],
    [257, 4, height],
    [258, 3, 8],
    [259, 3, 1],
    [262, 3, 1],
    [273, 4, 0],
    [277, 3, 1],
    [278, 4, height],
    [279, 4, width * height],
  ]
  const ifd = 8
  const pixels = ifd + 2 + entries.length * 12 + 4
  const out = Buffer.alloc(pixels + width * height)
  out.write('II', 0, 'latin1')
  out.writeUInt16LE(42, 2)
  out.writeUInt32LE(ifd, 4)
  out.writeUInt16LE(entries.length, ifd)
  entries.forEach(([tag, type, value], i) => {
    const at = ifd + 2 + i * 12
    out.writeUInt16LE(tag, at)
    out.writeUInt16LE(type, at + 2)
    out.writeUInt32LE(1, at + 4)
    if (type === 3) out.writeUInt16LE(value, at + 8)
    else out.writeUInt32LE(tag === 273 ? pixels : value, at + 8)
  })
  for (let i = 0; i < width * height; i++) out[pixels + i] = data[i * 4]
  return out
}

/**
 * A PDF of pages of lines, each page scanned (only an image of its lines, with no text layer) or, where `text`
 * says so, printed (a text layer).
 */
export const scannedPdf = async (pages: string[][], { text = [] as number[] } = {}) => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (const [i, lines] of pages.entries()) {
    const page = doc.addPage([612, 792])
    if (text.includes(i + 1)) {
      lines.forEach((line, n) => page.drawText(line, { x: 40, y: 750 - n * 16, font, size: 11 }))
      continue
    }
    const png = await doc.embedPng(pageImage(lines))
    const scale = 612 / png.width
    page.drawImage(png, { x: 0, y: 792 - png.height * scale, width: 612, height: png.height * scale })
  }
  return Buffer.from(await doc.save())
}

/**
 * A PDF whose trailer names a standard security handler with a user password we do not know:
 * readers must ask for the password.
 */
export const encryptedPdf = () => {
  const hex = (n: number) => 'ab'.repeat(n)
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>',
    `<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -4 >>`,
  ]
  let body = '%PDF-1.4\n'
  const offsets: number[] = []
  objects.forEach((o, i) => {
    offsets.push(body.length)
    body += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = body.length
  const entries = offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${entries}`
  const id = `[<${hex(16)}> <${hex(16)}>]`
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Encrypt 4 0 R /ID ${id} >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(body, 'latin1')
}

const CONTENT_TYPES = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">',
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>',
  '<Default Extension="xml" ContentType="application/xml"/>',
  '<Override PartName="/word/document.xml"',
  ' ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
].join('')
const RELS = [
  '<?xml version="1.0" encoding="UTF-8"?>',
  '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">',
  '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"',
  ' Target="word/document.xml"/></Relationships>',
].join('')
const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

const paragraph = (p: string) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`

/** A Word table's XML: a row of cells per array, each cell one paragraph. */
export const docxTable = (rows: string[][]) =>
  `<w:tbl>${rows.map((r) => `<w:tr>${r.map((c) => `<w:tc>${paragraph(c)}</w:tc>`).join('')}</w:tr>`).join('')}</w:tbl>`

/**
 * A Word document of paragraphs (a string starting with `<w:` is written as XML, a table from docxTable);
 * `extra` adds zip entries (to make bombs), `documentRels` relationships (external links).
 */
export const docx = async (paragraphs: string[], extra: (zip: JSZip) => void = () => {}, documentRels?: string) => {
  const zip = new JSZip()
  zip.file('[Content_Types].xml', CONTENT_TYPES)
  zip.file('_rels/.rels', RELS)
  const body = paragraphs.map((p) => (p.startsWith('<w:') ? p : paragraph(p))).join('')
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8"?><w:document ` +
      `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ` +
      'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">' +
      `<w:body>${body}</w:body></w:document>`,
  )
  if (documentRels) zip.file('word/_rels/document.xml.rels', documentRels)
  extra(zip)
  return Buffer.from(await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }))
}

export const plainZip = async () => {
  const zip = new JSZip()
  zip.file('notes.txt', 'just a zip file')
  return Buffer.from(await zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE' }))
}

/** The first bytes of a Windows executable (MZ header, PE signature), padded. */
export const exe = () => {
  const b = Buffer.alloc(1024)
  b.write('MZ', 0, 'latin1')
  b.writeUInt32LE(0x80, 0x3c)
  b.write('PE\0\0', 0x80, 'latin1')
  return b
}
