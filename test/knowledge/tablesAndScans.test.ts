import { distance } from 'fastest-levenshtein'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { DOCX } from '../../ingestion/sniff'
import { docx, docxTable, outlinedPdf, pageImage, pageTiff, scannedPdf, tablePdf } from '../../testkit/files'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok } from '../helpers/service'
import { startUploads } from '../helpers/uploads'

type Ctx = { service: TestService; owner: Member }
const test = suite<Ctx>('API: files as people have them: tables kept as tables, scans and images read by OCR')

test.before(async (ctx) => {
  await startUploads(ctx)
  ok(
    await ctx.service.call('PATCH', '/api/v1/knowledge/config', {
      token: ctx.owner.token,
      body: {
        allowedFileTypes: ['text/plain', 'text/html', 'application/pdf', DOCX, 'image/png', 'image/jpeg', 'image/tiff'],
      },
    }),
  )
})
test.after(async ({ service }) => service.stop())

/** Small chunks without overlap, so that a ten-row table spans several chunks. */
const CHUNKING = JSON.stringify({ chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true })

const HEADER = ['Region', 'Q1 revenue', 'Q2 revenue', 'Manager']
const ROWS = [
  HEADER,
  ...['Aldgate', 'Bexley', 'Camden', 'Dalston', 'Enfield', 'Fulham', 'Gidea', 'Hackney', 'Ilford', 'Jubilee'].map(
    (name, i) => [name, `${410 + i * 13}.25`, `${520 + i * 7}`, `Manager${name}`],
  ),
]
const HEADER_LINE = '| Region | Q1 revenue | Q2 revenue | Manager |'

/** An uploaded file, its task run to its end; the task and the entry. */
const uploaded = async (ctx: Ctx, bytes: Buffer, name: string, fields: Record<string, string> = {}) => {
  const created = ok(
    await upload(
      ctx.service.url,
      ctx.owner.token,
      { source: 'file', chunkingOptions: CHUNKING, ...fields },
      { bytes, name },
    ),
    201,
  )
  const task = await waitForTask(ctx.service.call, ctx.owner.token, created.taskId, 60_000)
  return { task, id: created.id as string }
}

const entry = async (ctx: Ctx, id: string) =>
  ok(await ctx.service.call('GET', `/api/v1/knowledge/${id}`, { token: ctx.owner.token }))

const search = async (ctx: Ctx, query: string, mode = 'hybrid') =>
  ok(
    await ctx.service.call('POST', '/api/v1/knowledge/search', {
      token: ctx.owner.token,
      body: { query, mode, minScore: 0, limit: 10 },
    }),
  ).results as { id: string; title: string; content: string; chunkIndex: number; headingPath?: string }[]

for (const ruled of [true, false])
  test(`a PDF ${ruled ? 'ruled table' : 'table of aligned columns, without rules'}: a cell asked for by row and column \
finds its row's chunk, with the header`, async (ctx) => {
    const { task, id } = await uploaded(ctx, await tablePdf('Regional revenue', ROWS, { ruled }), 'revenue.pdf')
    assert.is(task.status, 'completed', task.error)
    const content: string = (await entry(ctx, id)).content
    assert.ok(
      content.includes(`${HEADER_LINE}\n| --- | --- | --- | --- |\n| Aldgate | 410.25 | 520 | ManagerAldgate |`),
    )
    assert.ok(content.includes('| Jubilee | 527.25 | 583 | ManagerJubilee |'), content)
    for (const mode of ['text', 'hybrid']) {
      const [first] = (await search(ctx, 'Hackney Q2 revenue', mode)).filter((r) => r.id === id)
      assert.ok(first, `${mode}: the table's entry is found`)
      assert.ok(first.content.includes('| Hackney | 501.25 | 569 | ManagerHackney |'), `${mode}: ${first.content}`)
      assert.ok(first.content.startsWith(HEADER_LINE), `${mode}: the header first: ${first.content}`)
      // The table spans several chunks: this one starts among the rows, and holds the header all the same.
      assert.ok(first.chunkIndex > 0, `${mode}: chunk ${first.chunkIndex}`)
    }
  })

test('DOCX and HTML tables become Markdown tables; their rows are found with their header', async (ctx) => {
  const word = await uploaded(
    ctx,
    await docx(['Staff rota for the winter term.', docxTable(ROWS), 'Ask the office for changes.']),
    'rota.docx',
  )
  assert.is(word.task.status, 'completed', word.task.error)
  const docxContent: string = (await entry(ctx, word.id)).content
  assert.ok(docxContent.includes(`${HEADER_LINE}\n| --- | --- | --- | --- |\n| Aldgate |`), docxContent)

  const cells = (r: string[], tag: string) => `<tr>${r.map((c) => `<${tag}>${c}</${tag}>`).join('')}</tr>`
  const page = [
    '<!doctype html><html><head><title>Branch figures</title></head><body><article>',
    '<h1>Branch figures</h1><p>These are the branch figures for the year, as the finance team reported them.</p>',
    `<table><thead>${cells(HEADER, 'th')}</thead><tbody>`,
    ...ROWS.slice(1).map((r) => cells(r, 'td')),
    '</tbody></table><p>Figures are rounded to the nearest quarter, as they always have been.</p>',
    '</article></body></html>',
  ].join('\n')
  const html = await uploaded(ctx, Buffer.from(page), 'branches.html', { source: 'file' })
  assert.is(html.task.status, 'completed', html.task.error)
  const htmlContent: string = (await entry(ctx, html.id)).content
  assert.ok(htmlContent.includes(`${HEADER_LINE}\n| --- | --- | --- | --- |\n| Aldgate |`), htmlContent)

  const results = await search(ctx, 'Ilford Q1 revenue', 'text')
  for (const made of [word, html]) {
    const found = results.find((r) => r.id === made.id)
    assert.ok(found?.content.includes('| Ilford | 514.25 |'), found?.content)
    assert.ok(found?.content.startsWith(HEADER_LINE), found?.content)
  }
})

test("a PDF's outline gives its chunks their sections, and its title when its properties have none", async (ctx) => {
  const filler = (topic: string) =>
    Array.from({ length: 9 }, (_, i) => `The ${topic} work ${i} is done with care and patience.`)
  const lines = ['Tapir keeping', '1 Enclosures', ...filler('fencing'), '2 Feeding', ...filler('quinceberry')]
  const bytes = await outlinedPdf(lines, [
    { title: 'Tapir keeping', children: [{ title: '1 Enclosures' }, { title: '2 Feeding' }] },
  ])
  const { task, id } = await uploaded(ctx, bytes, 'guide.pdf')
  assert.is(task.status, 'completed', task.error)
  const made = await entry(ctx, id)
  assert.is(made.title, 'Tapir keeping')
  assert.ok(made.content.includes('## 2 Feeding'), made.content)
  const found = (await search(ctx, 'quinceberry', 'text')).find((r) => r.id === id)
  assert.is(found?.headingPath, 'Tapir keeping › 2 Feeding')
})

test("a table row's receipt: its header is in the text served and in the diff after an edit", async (ctx) => {
  const call = (method: string, path: string, body?: object) =>
    ctx.service.call(method, path, { token: ctx.owner.token, body })
  const table = (rows: string[][]) =>
    [rows[0], rows[0].map(() => '---'), ...rows.slice(1)].map((r) => `| ${r.join(' | ')} |`).join('\n')
  const content = (rows: string[][]) => `Figures of the branches.\n\n${table(rows)}\n\nAsk finance.`
  const made = ok(
    await call('POST', '/api/v1/knowledge', {
      source: 'text',
      title: 'Branch table',
      content: content(ROWS),
      chunkingOptions: JSON.parse(CHUNKING),
    }),
    201,
  )
  const answer = ok(
    await call('POST', '/api/v1/knowledge/search', { query: 'ManagerJubilee', mode: 'text', minScore: 0 }),
  )
  // The files of the tests before hold the same rows: this entry's result is found by its id.
  const at = answer.results.findIndex((r: { id: string }) => r.id === made.id)
  const hit = answer.results[at]
  assert.ok(hit?.content.startsWith(`${HEADER_LINE}\n| --- | --- | --- | --- |\n`), hit?.content)
  assert.ok(hit.chunkIndex > 0)
  const receipt = async () => ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}`)).results[at]
  assert.is((await receipt()).status, 'current')
  const edited = ROWS.map((r) => (r[0] === 'Jubilee' ? [r[0], r[1], '999', r[3]] : r))
  ok(await call('PATCH', `/api/v1/knowledge/${made.id}`, { content: content(edited) }))
  const changed = await receipt()
  assert.is(changed.status, 'changed')
  // The text served is found again in the log, header and all: the diff shows the row that changed.
  assert.match(changed.diff, /-\| Jubilee \| 527\.25 \| 583 \| ManagerJubilee \|/)
  assert.match(changed.diff, /\+\| Jubilee \| 527\.25 \| 999 \| ManagerJubilee \|/)
})

/** The steps a task went through, from its events. */
const stepsOf = async (ctx: Ctx, taskId: string) => {
  const { events } = ok(
    await ctx.service.call('GET', `/api/v1/audit/events?streamId=task-${taskId}&limit=100`, { token: ctx.owner.token }),
  )
  return (events as { type: string; data: { step?: string; progress?: number } }[])
    .filter((e) => e.type === 'TaskProgressed')
    .map((e) => [e.data.step, e.data.progress] as const)
    .reverse()
}

test('a scanned PDF is read by OCR page by page; a page it cannot read is a warning, the rest go in', async (ctx) => {
  const pages = [
    ['Quokkas live on Rottnest Island.', 'They are small wallabies.'],
    [],
    ['Numbats eat termites every day.'],
  ]
  const { task, id } = await uploaded(ctx, await scannedPdf(pages), 'scan.pdf')
  assert.is(task.status, 'completed', task.error)
  assert.equal(task.result.warnings, ['page 2 gave no text: no text was found on it'])
  const content: string = (await entry(ctx, id)).content
  assert.match(content, /Quokkas live on Rottnest Island/)
  assert.match(content, /Numbats eat termites/)
  const steps = await stepsOf(ctx, task.id)
  const ocr = steps.filter(([step]) => step?.startsWith('Parsing (OCR'))
  assert.equal(
    ocr.map(([step]) => step),
    ['Parsing (OCR, page 1 of 3)', 'Parsing (OCR, page 2 of 3)', 'Parsing (OCR, page 3 of 3)'],
  )
  const progress = ocr.map(([, p]) => p ?? 0)
  assert.ok(
    progress.every((p, i) => p >= 30 && p < 50 && (i === 0 || p > progress[i - 1])),
    `${progress}`,
  )
  const found = (await search(ctx, 'Rottnest Island wallabies', 'text')).find((r) => r.id === id)
  assert.ok(found, 'the scan is searchable by its words')
  // Clean print is read with at least 95 % of its characters right.
  const printed = [...pages[0], ...pages[2]].join('\n')
  assert.ok(1 - distance(content, printed) / printed.length >= 0.95, content)
})

test('a PDF of printed pages and a scanned one: the printed are read as text, the scanned by OCR', async (ctx) => {
  const pages = [
    ['Koalas sleep up to twenty hours a day.'],
    ['Echidnas lay eggs in a pouch.'],
    ['Platypuses hunt by electroreception.'],
  ]
  const { task, id } = await uploaded(ctx, await scannedPdf(pages, { text: [1, 3] }), 'mixed.pdf')
  assert.is(task.status, 'completed', task.error)
  assert.is(task.result.warnings, undefined)
  const content: string = (await entry(ctx, id)).content
  assert.is(content.split('\n\n').length, 3, content)
  assert.match(content, /^Koalas sleep up to twenty hours a day\.\n\nEchidnas lay eggs in a pouch\.\n\nPlatypuses/)
  // Only the scanned page went through OCR.
  const ocr = (await stepsOf(ctx, task.id)).filter(([step]) => step?.startsWith('Parsing (OCR'))
  assert.equal(
    ocr.map(([step]) => step),
    ['Parsing (OCR, page 1 of 1)'],
  )
})

test('a scan with nothing legible fails with the reason', async (ctx) => {
  const { task } = await uploaded(ctx, await scannedPdf([[], []]), 'blank-scan.pdf')
  assert.is(task.status, 'failed')
  assert.match(
    task.error,
    /no text could be read from the PDF: it has no text layer, and OCR read nothing on pages 1, 2/,
  )
})

test('PNG, JPEG and TIFF images of pages are read by OCR, their types read from their content', async (ctx) => {
  const images = [
    [pageImage(['Bilbies dig spiral burrows.']), 'bilby.bin'],
    [pageImage(['Wombats have cube shaped droppings.'], 'jpeg'), 'wombat.dat'],
    [pageTiff(['Devils have the strongest bite.']), 'devil.tif'],
  ] as const
  for (const [bytes, name] of images) {
    const { task, id } = await uploaded(ctx, bytes, name)
    assert.is(task.status, 'completed', `${name}: ${task.error}`)
    const made = await entry(ctx, id)
    assert.is(made.storageInfo.mimeType, { bin: 'image/png', dat: 'image/jpeg', tif: 'image/tiff' }[name.split('.')[1]])
  }
  const found = await search(ctx, 'spiral burrows', 'text')
  assert.match(found[0]?.content ?? '', /Bilbies dig spiral burrows/)
  assert.match((await search(ctx, 'strongest bite', 'text'))[0]?.content ?? '', /Devils have the strongest bite/)
})

test('an image type the workspace does not allow is refused, naming those allowed; a huge image fails', async (ctx) => {
  ok(
    await ctx.service.call('PATCH', '/api/v1/knowledge/config', {
      token: ctx.owner.token,
      body: { allowedFileTypes: ['text/plain', 'application/pdf', 'image/png'] },
    }),
  )
  const refused = await upload(
    ctx.service.url,
    ctx.owner.token,
    { source: 'file' },
    {
      bytes: pageImage(['x'], 'jpeg'),
      name: 'photo.png',
      type: 'image/png',
    },
  )
  const error = expectError(refused, 400, 'VALIDATION_ERROR')
  assert.ok(
    error.details?.some((d: string) => d.includes('image/jpeg')),
    JSON.stringify(error),
  )
  assert.ok(error.details?.some((d: string) => d === 'allowed types: text/plain, application/pdf, image/png'))
  // A PNG whose header says 20,000 × 20,000 pixels: refused before it is decoded, at once.
  const huge = pageImage(['x'])
  huge.writeUInt32BE(20_000, 16)
  huge.writeUInt32BE(20_000, 20)
  const { task } = await uploaded(ctx, huge, 'huge.png')
  assert.is(task.status, 'failed')
  assert.match(task.error, /20000 × 20000 pixels, over the limit of 36 megapixels/)
  // Cut halfway: OCR's decoder refuses it, and the task says so.
  const good = pageImage(['Half an image.'])
  const cut = await uploaded(ctx, good.subarray(0, good.length / 2), 'cut.png')
  assert.is(cut.task.status, 'failed')
  assert.is(cut.task.error, 'the PNG image could not be read: it is damaged')
})

test.run()
