// A document of an evaluation set as a PDF file, for the sets that ingest some documents as files
// (`format: 'pdf'`): its text laid out on A4 pages in Helvetica, each line wrapped at the page's width,
// a blank line between paragraphs. The text must already be what the standard fonts can encode
// (scripts/eval/mixed.ts, pdfSafe).
import { PDFDocument, StandardFonts } from 'pdf-lib'

const WIDTH = 595
const HEIGHT = 842
const MARGIN = 50
const SIZE = 9
const LEADING = 12

export const renderPdf = async (title: string, text: string): Promise<Buffer> => {
  const doc = await PDFDocument.create()
  doc.setTitle(title)
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const fits = (line: string) => font.widthOfTextAtSize(line, SIZE) <= WIDTH - 2 * MARGIN
  const lines: string[] = []
  for (const source of text.split('\n')) {
    let line = ''
    for (const word of source.split(/ +/)) {
      const next = line ? `${line} ${word}` : word
      if (fits(next) || !line) line = next
      else {
        lines.push(line)
        line = word
      }
    }
    lines.push(line)
  }
  const perPage = Math.floor((HEIGHT - 2 * MARGIN) / LEADING)
  for (let i = 0; i < lines.length; i += perPage) {
    const page = doc.addPage([WIDTH, HEIGHT])
    lines.slice(i, i + perPage).forEach((line, j) => {
      if (line) page.drawText(line, { x: MARGIN, y: HEIGHT - MARGIN - j * LEADING, font, size: SIZE })
    })
  }
  return Buffer.from(await doc.save())
}
