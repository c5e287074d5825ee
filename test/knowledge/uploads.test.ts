import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { hashOf } from '../../adapters/blobs'
import { ORPHAN_AGE_MS, removeOrphanFiles } from '../../workers/knowledge/retention'
import { docx, encryptedPdf, pdf } from '../../testkit/files'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { send, startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints (parsers and stored files)',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

test('a PDF upload is stored by hash, parsed page by page, chunked and searchable', async ({ service, owner }) => {
  const bytes = await pdf(['Axolotls can regenerate their limbs.', 'They are native to Lake Xochimilco.'])
  // The client's Content-Type is a lie: the content decides.
  const r = await send(
    service,
    owner,
    bytes,
    'axolotl.pdf',
    { metadata: JSON.stringify({ category: 'biology', tags: ['amphibian'] }) },
    'text/plain',
  )
  const created = ok(r, 201)
  assert.is(created.source, 'document')
  assert.is(created.processingStatus === 'pending' || created.processingStatus === 'processing', true)
  assert.is(created.storageInfo.mimeType, 'application/pdf')
  assert.is(created.storageInfo.fileName, 'axolotl.pdf')
  assert.is(created.storageInfo.size, bytes.length)
  assert.equal(created.metadata, { category: 'biology', tags: ['amphibian'] })
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'completed', JSON.stringify(task))
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.match(entry.content, 'regenerate their limbs')
  assert.match(entry.content, 'Lake Xochimilco')
  const blob = path.join(service.dataDir, 'blobs', created.storageInfo.sha256.slice(0, 2), created.storageInfo.sha256)
  assert.ok(fs.existsSync(blob))
  const found = ok(
    await service.call('POST', '/api/v1/knowledge/search', {
      token: owner.token,
      body: { query: 'Xochimilco', mode: 'text', minScore: 0 },
    }),
  )
  assert.ok(found.results.some((x: any) => x.id === created.id))
  // Deleting the entry removes its stored file.
  ok(await service.call('DELETE', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.not.ok(fs.existsSync(blob))
})

test('DOCX, HTML, Markdown and plain text uploads are read by their parsers', async ({ service, owner }) => {
  const cases: [Buffer, string, string][] = [
    [await docx(['Narwhals have a long spiral tusk.', 'It is a tooth.']), 'narwhal.docx', 'long spiral tusk'],
    [
      Buffer.from(
        '<!doctype html><html><head><title>Okapi</title><script>document.write("evil")</script></head><body><p>The ' +
          'okapi is related to the giraffe.</p></body></html>',
      ),
      'okapi.html',
      'related to the giraffe',
    ],
    [Buffer.from('# Tapirs\n\nTapirs have a prehensile snout.\n'), 'tapir.md', 'prehensile snout'],
    [Buffer.from('Pangolins are covered in keratin scales.'), 'pangolin.txt', 'keratin scales'],
  ]
  for (const [bytes, name, phrase] of cases) {
    const created = ok(await send(service, owner, bytes, name), 201)
    const task = await waitForTask(service.call, owner.token, created.taskId)
    assert.is(task.status, 'completed', `${name}: ${JSON.stringify(task)}`)
    const content = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token })).content
    assert.match(content, phrase)
    assert.not.match(content, 'evil', 'no script ran and none is kept')
  }
})

test(
  'a refused create stores nothing; a stored file no entry holds (a crash between storing it and the ' +
    "entry's append) is removed by the sweep once it is an hour old",
  async ({ service }) => {
    const m = await seedMember(service.call)
    const files = { blobs: service.deps.blobs, db: service.deps.db.pool }
    const blobOf = (bytes: Buffer) => path.join(service.dataDir, 'blobs', hashOf(bytes).slice(0, 2), hashOf(bytes))
    const kept = Buffer.from('Echidnas lay eggs.')
    const refused = Buffer.from('Platypuses lay eggs too.')
    ok(await send(service, m, kept, 'kept.txt'), 201)
    expectError(
      await send(service, m, refused, 'refused.txt', { folderId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'NOT_FOUND',
    )
    assert.not.ok(fs.existsSync(blobOf(refused)), 'a file is stored only once its entry is admitted')
    const orphan = Buffer.from('Numbats eat termites.')
    await service.deps.blobs.put(orphan)
    assert.is(await removeOrphanFiles(files), 0, 'a fresh file may be an upload on its way')
    assert.is(await removeOrphanFiles(files, new Date(Date.now() + ORPHAN_AGE_MS + 60_000)), 1)
    assert.not.ok(fs.existsSync(blobOf(orphan)))
    assert.ok(fs.existsSync(blobOf(kept)))
  },
)

test('broken inputs fail their task with the reason: encrypted PDF, DOCX zip bombs, a PDF that is not one', async ({
  service,
  owner,
}) => {
  const bomb = await docx(['bomb'], (zip) => zip.file('word/media/zeros.bin', Buffer.alloc(60 * 1024 * 1024)))
  const crowded = await docx(['crowded'], (zip) => {
    for (let i = 0; i < 1100; i++) zip.file(`word/parts/p${i}.xml`, '<x/>')
  })
  const truncated = (await pdf(['cut short'])).subarray(0, 60)
  const withLink = await docx(
    ['Links are never followed.'],
    () => {},
    `<?xml version="1.0"?><Relationships ` +
      `xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId9" ` +
      `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" ` +
      `Target="http://169.254.169.254/x.png" TargetMode="External"/></Relationships>`,
  )
  const cases: [Buffer, string, string | undefined][] = [
    [encryptedPdf(), 'secret.pdf', 'encrypted'],
    [bomb, 'bomb.docx', 'expands to more than'],
    [crowded, 'crowded.docx', 'zip entries'],
    [truncated, 'short.pdf', 'could not be read'],
    [withLink, 'linked.docx', undefined],
  ]
  for (const [bytes, name, reason] of cases) {
    const created = ok(await send(service, owner, bytes, name), 201)
    const task = await waitForTask(service.call, owner.token, created.taskId)
    if (reason === undefined) {
      assert.is(task.status, 'completed', JSON.stringify(task))
      continue
    }
    assert.is(task.status, 'failed', `${name}: ${JSON.stringify(task)}`)
    assert.match(task.error, reason)
    assert.is(task.progress, 30, 'failed while parsing')
    const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
    assert.is(entry.processingStatus, 'failed')
    const chunks = await service.deps.db.pool.query('SELECT count(*)::int AS n FROM kb_chunks WHERE entry_id = $1', [
      created.id,
    ])
    assert.is(chunks.rows[0].n, 0)
  }
})

/** A zip whose central directory and local header understate an entry's size by `by` bytes. */
const sizeLie = (zip: Buffer, name: string, by: number) => {
  const b = Buffer.from(zip)
  for (let i = 0; i + 46 < b.length; i++) {
    const signature = b.readUInt32LE(i)
    if (signature === 0x04034b50 && b.toString('latin1', i + 30, i + 30 + b.readUInt16LE(i + 26)) === name)
      b.writeUInt32LE(b.readUInt32LE(i + 22) - by, i + 22)
    if (signature === 0x02014b50 && b.toString('latin1', i + 46, i + 46 + b.readUInt16LE(i + 28)) === name)
      b.writeUInt32LE(b.readUInt32LE(i + 24) - by, i + 24)
  }
  return b
}

test(
  "a damaged input fails in words about the input, never a library's message: bad XML, a zip size lie, NUL " + 'bytes',
  async ({ service, owner }) => {
    const badXml = await docx([], (zip) =>
      zip.file(
        'word/document.xml',
        '<?xml version="1.0"?><w:document ' +
          'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' +
          '<w:body><w:p><w:r><w:t>text</w:r></w:body>',
      ),
    )
    const lie = sizeLie(
      await docx(['A paragraph long enough to be compressed, repeated. '.repeat(20)]),
      'word/document.xml',
      10,
    )
    for (const [bytes, name, reason] of [
      [badXml, 'bad-xml.docx', 'the DOCX is damaged: its document text is not well-formed XML'],
      [lie, 'lie.docx', 'the DOCX is damaged: its compressed data does not match its declared size'],
    ] as const) {
      const created = ok(await send(service, owner, bytes, name), 201)
      const task = await waitForTask(service.call, owner.token, created.taskId)
      assert.is(task.status, 'failed', JSON.stringify(task))
      assert.is(task.error, reason)
    }
    // NUL bytes are refused when the file arrives, for what they are.
    const nul = Buffer.from('a text file\u0000 with NUL bytes\u0000 in it\n', 'utf8')
    const error = expectError(await send(service, owner, nul, 'nul.txt'), 400, 'VALIDATION_ERROR')
    assert.ok(
      error.details?.some((d) => d.includes('the file holds NUL bytes, so it is not text')),
      JSON.stringify(error),
    )
  },
)

test.run()
