import { PDFDocument, StandardFonts } from 'pdf-lib'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { docx, pdf } from '../../testkit/files'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, ok } from '../helpers/service'
import { send, startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: an upload sent without a title is titled by its document, else by its file name',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

/** Uploads a file with no title, waits for its task, and answers the entry's title then. */
const titleOf = async ({ service, owner }: { service: TestService; owner: Member }, bytes: Buffer, name: string) => {
  const created = ok(await upload(service.url, owner.token, { source: 'file' }, { bytes, name }), 201)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'completed', JSON.stringify(task))
  return ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token })).title as string
}

const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'

/** A DOCX whose core properties name its title. */
const docxWithCoreTitle = (title: string) =>
  docx(['Echidnas lay eggs.', 'They are monotremes.'], (zip) => {
    zip.file(
      'docProps/core.xml',
      '<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties ' +
        'xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ' +
        `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${title}</dc:title></cp:coreProperties>`,
    )
  })

/** A DOCX without core properties whose second paragraph is its first heading. */
const docxWithHeading = () =>
  docx([], (zip) =>
    zip.file(
      'word/document.xml',
      `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>` +
        '<w:p><w:r><w:t>Prepared for the field team.</w:t></w:r></w:p>' +
        '<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr>' +
        '<w:r><w:t>Platypus </w:t></w:r><w:r><w:t>Survey</w:t></w:r></w:p>' +
        '<w:p><w:r><w:t>Platypuses hunt with electroreception.</w:t></w:r></w:p>' +
        '</w:body></w:document>',
    ),
  )

/** A PDF whose Info dictionary (and XMP) name its title. */
const pdfWithTitle = async (title: string) => {
  const doc = await PDFDocument.create()
  doc.setTitle(title)
  const font = await doc.embedFont(StandardFonts.Helvetica)
  doc.addPage().drawText('Bilbies dig spiral burrows.', { x: 40, y: 780, font, size: 10 })
  return Buffer.from(await doc.save())
}

test("Markdown: its first '#' heading, not its file name (the README's quick start)", async (ctx) => {
  const md = Buffer.from('# Numbats\n\nNumbats eat termites, up to 20,000 a day.\n')
  assert.is(await titleOf(ctx, md, 'numbats.md'), 'Numbats')
  const fenced = Buffer.from('```sh\n# not a title\n```\n\nSome words first.\n\n# The **Real** Title\n\nText.\n')
  assert.is(await titleOf(ctx, fenced, 'fenced.md'), 'The Real Title')
})

test('HTML: its <title>, else its first <h1>', async (ctx) => {
  const titled = '<html><head><title> Wombat  facts </title></head><body><h1>Wombats</h1><p>Cubes.</p></body></html>'
  assert.is(await titleOf(ctx, Buffer.from(titled), 'wombat-page.html'), 'Wombat facts')
  const headed = '<html><head></head><body><h1>Dingo <em>notes</em></h1><p>Dingoes howl.</p></body></html>'
  assert.is(await titleOf(ctx, Buffer.from(headed), 'dingo-page.html'), 'Dingo notes')
})

test("DOCX: its core properties' title, else its first heading", async (ctx) => {
  assert.is(await titleOf(ctx, await docxWithCoreTitle('Echidna &amp; Friends'), 'echidna.docx'), 'Echidna & Friends')
  assert.is(await titleOf(ctx, await docxWithHeading(), 'platypus.docx'), 'Platypus Survey')
})

test("PDF: its title metadata, else its file name's rule", async (ctx) => {
  assert.is(await titleOf(ctx, await pdfWithTitle('Bilby Field Guide'), 'scan_0042.pdf'), 'Bilby Field Guide')
  // pdf-lib writes no title unless asked: the file name, as before.
  assert.is(await titleOf(ctx, await pdf(['Quolls are spotted.']), 'quoll_notes.pdf'), 'quoll notes')
})

test('a document without a title of its own, and a title the client gave, stay as they were', async (ctx) => {
  assert.is(await titleOf(ctx, Buffer.from('Just some notes.\n'), 'field-notes.md'), 'field notes')
  assert.is(await titleOf(ctx, Buffer.from('Plain words.\n'), 'plain_words.txt'), 'plain words')
  const { service, owner } = ctx
  const md = Buffer.from('# From the heading\n\nBody.\n')
  const created = ok(await send(service, owner, md, 'named.md', { title: 'Given by the client' }), 201)
  await waitForTask(service.call, owner.token, created.taskId)
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.is(entry.title, 'Given by the client')
})

test('the document title is searchable as the title', async ({ service, owner }) => {
  const md = Buffer.from('# Thylacine Records\n\nThe last known one died in 1936.\n')
  const created = ok(await upload(service.url, owner.token, { source: 'file' }, { bytes: md, name: 'tiger.md' }), 201)
  await waitForTask(service.call, owner.token, created.taskId)
  const found = ok(
    await service.call('POST', '/api/v1/knowledge/search', {
      token: owner.token,
      body: { query: 'thylacine', mode: 'text', minScore: 0 },
    }),
  )
  const hit = found.results.find((r: any) => r.id === created.id)
  assert.is(hit?.title, 'Thylacine Records')
})

test.run()
