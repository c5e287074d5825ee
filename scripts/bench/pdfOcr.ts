// `npm run bench -- pdf-ocr`: what reading tables and scans costs. (1) A 30-page text PDF read as the service reads
// it (text layer, tables, outline) against its text layer alone (pdf-parse's getText and getInfo, as the
// service read PDFs before it looked for tables), alternating, in-process; then the same PDF's whole ingestion
// through the API (BENCH_EMBEDDERS, default hashing,local), which the difference is set against. (2) OCR: a
// scanned PDF of BENCH_OCR_PAGES pages (default 10) and as many PNG images, pages per second and the share of
// characters read right.
import { distance } from 'fastest-levenshtein'
import { PDFParse } from 'pdf-parse'
import { imageText } from '../../ingestion/ocr'
import { pdfText } from '../../ingestion/pdf'
import { pageImage, pdf, scannedPdf } from '../../testkit/files'
import { SETS, loadDocs } from '../eval/sets'
import { BENCH_ADMIN, benchService } from './service'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const OCR_PAGES = Number(process.env.BENCH_OCR_PAGES ?? 10)
const EMBEDDERS = (process.env.BENCH_EMBEDDERS ?? 'hashing,local').split(',')
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const say = (line: string) => process.stderr.write(`${line}\n`)

// 30 pages of the python evaluation set's text, 50 lines of up to 90 characters a page.
const words = loadDocs(SETS.find((s) => s.name === 'python')!)
  .map((d) => d.text)
  .join(' ')
  // Latin-1 only: the PDF's standard font writes nothing else.
  .replace(/[^\x20-\x7e\xa0-\xff]/g, ' ')
  .split(/\s+/)
const pageText = (n: number) => words.slice(n * 700, (n + 1) * 700).join(' ')
const textPdf = await pdf(Array.from({ length: 30 }, (_, n) => pageText(n)))

/** How the service read a PDF before tables and outlines: its text layer and its properties. */
const textLayer = async (bytes: Uint8Array) => {
  const parser = new PDFParse({ data: new Uint8Array(bytes) })
  try {
    const { pages } = await parser.getText()
    await parser.getInfo()
    return pages.map((p) => p.text.trim()).join('\n\n')
  } finally {
    await parser.destroy()
  }
}

const timed = async (f: () => Promise<unknown>) => {
  const t0 = performance.now()
  await f()
  return performance.now() - t0
}

say('reading the 30-page text PDF')
await textLayer(textPdf)
await pdfText(textPdf)
const before: number[] = []
const now: number[] = []
for (let r = 0; r < ROUNDS; r++) {
  before.push(await timed(() => textLayer(textPdf)))
  now.push(await timed(() => pdfText(textPdf)))
  now.push(await timed(() => pdfText(textPdf)))
  before.push(await timed(() => textLayer(textPdf)))
}
const added = median(now) - median(before)

/** Upload → completed through the API, seconds. */
const ingest = async (embedder: string) => {
  const { service, stop } = await benchService('pdf-ocr', embedder)
  try {
    const base = service.url
    const admin = { authorization: `Bearer ${BENCH_ADMIN}`, 'content-type': 'application/json' }
    const post = async (path: string, body: object, headers: Record<string, string> = admin) =>
      (await (await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) })).json()).data
    const user = await post('/api/v1/admin/users', { email: 'bench@example.com', name: 'Bench' })
    const ws = await post('/api/v1/admin/workspaces', { name: 'Bench' })
    await post(`/api/v1/admin/workspaces/${ws.id}/members`, { userId: user.id, role: 'owner' })
    const { access_token: token } = await post('/api/v1/admin/tokens', { userId: user.id, workspaceId: ws.id })
    const form = new FormData()
    form.set('source', 'file')
    form.set('file', new Blob([new Uint8Array(textPdf)]), 'manual.pdf')
    const t0 = performance.now()
    const headers = { authorization: `Bearer ${token}` }
    const made = (await (await fetch(`${base}/api/v1/knowledge`, { method: 'POST', headers, body: form })).json()).data
    for (;;) {
      const task = (await (await fetch(`${base}/api/v1/knowledge/tasks/${made.taskId}`, { headers })).json()).data
      if (task.status === 'completed') return (performance.now() - t0) / 1000
      if (task.status === 'failed') throw new Error(task.error)
      await new Promise((r) => setTimeout(r, 100))
    }
  } finally {
    await stop()
  }
}
const ingestion: [string, number][] = []
for (const e of EMBEDDERS) {
  say(`ingesting it with the ${e} embedder`)
  ingestion.push([e, await ingest(e)])
}

// OCR: pages of 20 lines of the same text, 55 characters a line, as a scanner gives them.
const lines = (n: number) => {
  const text = words.slice(n * 200 + 50_000, (n + 1) * 200 + 50_000).join(' ')
  return (text.match(/.{1,55}(\s|$)/g) ?? []).slice(0, 20).map((l) => l.trim())
}
const pages = Array.from({ length: OCR_PAGES }, (_, n) => lines(n))
const accuracy = (read: string, printed: string) => 1 - distance(read, printed) / printed.length
say(`reading a scanned PDF of ${OCR_PAGES} pages by OCR`)
const scan = await scannedPdf(pages)
let scanned = ''
const scanMs = await timed(async () => {
  scanned = (await pdfText(scan)).text
})
say(`reading ${OCR_PAGES} PNG images by OCR`)
const images = pages.map((p) => pageImage(p))
let imagesRead = ''
const imageMs = await timed(async () => {
  const texts: string[] = []
  for (const image of images) texts.push(await imageText(image, 'image/png'))
  imagesRead = texts.join('\n\n')
})
const printed = pages.map((p) => p.join('\n')).join('\n\n')

console.log('\n30-page text PDF (135 kB of text), median of', 2 * ROUNDS, 'reads each, in-process\n')
console.log('| read | ms | ratio |\n|---|---:|---:|')
console.log(`| text layer alone (before) | ${median(before).toFixed(0)} | 1.00 |`)
console.log(
  `| text layer, tables, outline | ${median(now).toFixed(0)} | ${(median(now) / median(before)).toFixed(2)} |`,
)
console.log('\nThe same PDF uploaded through the API, upload to completed\n')
console.log('| embedder | s | added reading as a share |\n|---|---:|---:|')
for (const [e, s] of ingestion) console.log(`| ${e} | ${s.toFixed(1)} | ${((100 * added) / 1000 / s).toFixed(1)} % |`)
console.log(`\nOCR, ${OCR_PAGES} pages of 20 printed lines\n`)
console.log('| input | pages/s | characters read right |\n|---|---:|---:|')
console.log(`| scanned PDF | ${(OCR_PAGES / (scanMs / 1000)).toFixed(2)} | ${accuracy(scanned, printed).toFixed(3)} |`)
console.log(
  `| PNG images | ${(OCR_PAGES / (imageMs / 1000)).toFixed(2)} | ${accuracy(imagesRead, printed).toFixed(3)} |`,
)
process.exit(0)
