import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { hashOf } from '../../adapters/blobs'
import { DOCX } from '../../ingestion/sniff'
import { ORPHAN_AGE_MS, removeOrphanFiles } from '../../workers/knowledge/retention'
import { docx, encryptedPdf, exe, pdf, plainZip } from '../../testkit/files'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints',
)

test.before(async (ctx) => {
  ctx.service = await startTestService({ PARSE_TIMEOUT_MS: '20000' })
  ctx.owner = await seedMember(ctx.service.call)
  // DOCX is supported once a workspace allows it.
  ok(
    await ctx.service.call('PATCH', '/api/v1/knowledge/config', {
      token: ctx.owner.token,
      body: { allowedFileTypes: ['text/plain', 'text/markdown', 'text/html', 'application/pdf', DOCX] },
    }),
  )
})
test.after(async ({ service }) => service.stop())

const send = (
  service: TestService,
  m: Member,
  bytes: Buffer,
  name: string,
  fields: Record<string, string> = {},
  type?: string,
) => upload(service.url, m.token, { title: `Upload ${name}`, source: 'file', ...fields }, { bytes, name, type })

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

test('text saved with a byte-order mark (UTF-16 LE or BE, UTF-8) is read as text', async ({ service }) => {
  const m = await seedMember(service.call)
  const utf16le = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')])
  const cases: [Buffer, string, string, string][] = [
    [utf16le('Quokkas live on Rottnest Island, café.\r\n'), 'quokka.txt', 'text/plain', 'Rottnest Island, café.'],
    [
      utf16le('<!doctype html><p>Numbats eat termites.</p>').swap16(),
      'numbat.html',
      'text/html',
      'Numbats eat termites.',
    ],
    [
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Bilby\n\nBilbies dig burrows.')]),
      'bilby.md',
      'text/markdown',
      '# Bilby',
    ],
  ]
  for (const [bytes, name, mimeType, phrase] of cases) {
    const created = ok(await send(service, m, bytes, name), 201)
    assert.is(created.storageInfo.mimeType, mimeType, name)
    const task = await waitForTask(service.call, m.token, created.taskId)
    assert.is(task.status, 'completed', `${name}: ${JSON.stringify(task)}`)
    const content: string = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: m.token })).content
    assert.not.ok(content.includes('\uFEFF'), `${name}: no byte-order mark is kept`)
    assert.match(content, phrase)
  }
  // A UTF-16 mark before bytes that are not text does not make them text.
  const marked = expectError(
    await send(service, m, Buffer.from([0xff, 0xfe, 0x01, 0x00, 0x02, 0x1b, 0x41, 0x00]), 'marked.txt'),
    400,
    'VALIDATION_ERROR',
  )
  assert.ok(
    marked.details?.includes('file: the content starts with a UTF-16 byte-order mark but is not text'),
    JSON.stringify(marked),
  )
  // UTF-16 without its mark cannot be told from binary: refused, naming what is read.
  const r = await send(service, m, Buffer.from('Dingoes howl.', 'utf16le'), 'dingo.txt')
  const details = (expectError(r, 400, 'VALIDATION_ERROR').details ?? []).join('\n')
  assert.match(details, 'UTF-16 with a byte-order mark')
})

test(
  'text in another encoding is read in the charset its part declares; undeclared, the refusal says how to ' +
    'declare it',
  async ({ service }) => {
    const m = await seedMember(service.call)
    const latin1 = Buffer.from('Crème brûlée: a custard under a layer of caramel, « très » French.\n', 'latin1')
    const declared = ok(await send(service, m, latin1, 'dessert.txt', {}, 'text/plain; charset=windows-1252'), 201)
    assert.is(declared.storageInfo.mimeType, 'text/plain')
    const task = await waitForTask(service.call, m.token, declared.taskId)
    assert.is(task.status, 'completed', JSON.stringify(task))
    const entry = ok(await service.call('GET', `/api/v1/knowledge/${declared.id}`, { token: m.token }))
    assert.match(entry.content, 'Crème brûlée: a custard under a layer of caramel, « très » French.')
    const found = ok(
      await service.call('POST', '/api/v1/knowledge/search', {
        token: m.token,
        body: { query: 'brûlée', mode: 'text', minScore: 0 },
      }),
    )
    assert.ok(
      found.results.some((x: any) => x.id === declared.id),
      JSON.stringify(found),
    )
    // HTML too: the declared charset is the transport's, as a web server's would be.
    const page = ok(
      await send(
        service,
        m,
        Buffer.from('<!doctype html><p>Smørrebrød is an open sandwich.</p>', 'latin1'),
        'smorrebrod.html',
        {},
        'text/html; charset=iso-8859-1',
      ),
      201,
    )
    assert.is((await waitForTask(service.call, m.token, page.taskId)).status, 'completed')
    assert.match(
      ok(await service.call('GET', `/api/v1/knowledge/${page.id}`, { token: m.token })).content,
      'Smørrebrød is an open sandwich.',
    )
    // UTF-8 declared as Latin-1 (some clients' default for any text part) is read as the UTF-8 it is.
    const misdeclared = ok(
      await send(
        service,
        m,
        Buffer.from('Smörgåsbord, naïve café.'),
        'buffet.txt',
        {},
        'text/plain; charset=ISO-8859-1',
      ),
      201,
    )
    assert.is(misdeclared.storageInfo.charset, undefined)
    assert.is((await waitForTask(service.call, m.token, misdeclared.taskId)).status, 'completed')
    assert.match(
      ok(await service.call('GET', `/api/v1/knowledge/${misdeclared.id}`, { token: m.token })).content,
      'Smörgåsbord, naïve café.',
    )
    assert.is(declared.storageInfo.charset, 'windows-1252')
    const before = ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).total
    // Undeclared, the same bytes are not UTF-8: refused, with what to do about it.
    const undeclared = expectError(await send(service, m, latin1, 'dessert.txt'), 400, 'VALIDATION_ERROR')
    assert.match(undeclared.message, 'not valid UTF-8')
    assert.ok(
      undeclared.details?.some((d) => d.includes('charset is declared')),
      JSON.stringify(undeclared),
    )
    // A charset no decoder knows, and binary bytes declared as a single-byte text, are refused too.
    const unknown = expectError(
      await send(service, m, latin1, 'dessert.txt', {}, 'text/plain; charset=klingon-8'),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      unknown.details?.some((d) => d.includes('the declared charset klingon-8 is not one this service reads')),
      JSON.stringify(unknown),
    )
    const binary = expectError(
      await send(
        service,
        m,
        Buffer.from([0x41, 0x42, 0x01, 0x02, 0x1b, 0xe9, 0x43]),
        'data.txt',
        {},
        'text/plain; charset=windows-1252',
      ),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      binary.details?.some((d) => d.includes('not valid windows-1252 text')),
      JSON.stringify(binary),
    )
    // The type is still the content's: a PDF declared as Latin-1 text stays a PDF.
    const pdfDeclared = ok(
      await send(
        service,
        m,
        await pdf(['Gravlax is cured salmon.']),
        'gravlax.txt',
        {},
        'text/plain; charset=windows-1252',
      ),
      201,
    )
    assert.is(pdfDeclared.storageInfo.mimeType, 'application/pdf')
    assert.is(pdfDeclared.storageInfo.charset, undefined)
    assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).total, before + 1)
  },
)

test('types are decided by content: refused types answer 400 listing the allowed ones, and nothing is created', async ({
  service,
  owner,
}) => {
  const plain = await seedMember(service.call) // default allowedFileTypes: no DOCX
  const before = ok(await service.call('GET', '/api/v1/knowledge', { token: plain.token })).total
  const refusals: [Buffer, string, string][] = [
    [exe(), 'report.pdf', 'application/x-msdownload'],
    [await plainZip(), 'letter.docx', 'zip archive'],
    [Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x41, 0xc3, 0x28]), 'notes.md', 'not'],
    [Buffer.alloc(0), 'empty.txt', 'empty'],
    [await docx(['not allowed here']), 'fine.docx', DOCX],
  ]
  for (const [bytes, name, reason] of refusals) {
    const error = expectError(await send(service, plain, bytes, name), 400, 'VALIDATION_ERROR')
    assert.ok(
      error.details?.some((d) => d.includes(reason)),
      `${name}: ${JSON.stringify(error)}`,
    )
    assert.ok(
      error.details?.some((d) => d.includes('allowed types: text/plain, text/markdown, text/html, application/pdf')),
      JSON.stringify(error),
    )
  }
  expectError(await upload(service.url, plain.token, { title: 'no file', source: 'file' }), 400, 'VALIDATION_ERROR')
  // A file part without a Content-Type header reads as a text field: told so, not "file is required".
  const raw = [
    '--b',
    'Content-Disposition: form-data; name="title"',
    '',
    'No type',
    '--b',
    'Content-Disposition: form-data; name="source"',
    '',
    'file',
    '--b',
    'Content-Disposition: form-data; name="file"; filename="noct.txt"',
    '',
    'Hello.',
    '--b--',
    '',
  ].join('\r\n')
  const untyped = expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: plain.token,
      raw,
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
    }),
    400,
    'VALIDATION_ERROR',
  )
  assert.match(untyped.details![0], /^file: the part named file has no Content-Type header/)
  expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: plain.token,
      body: { title: 'json file', source: 'file' },
    }),
    400,
    'VALIDATION_ERROR',
  )
  assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: plain.token })).total, before)
})

test(
  'which text a file is: its name first (.txt, .md, an HTML fragment in .html), then its syntax; Markdown ' +
    'is taken as plain text where only that is allowed',
  async ({ service }) => {
    const m = await seedMember(service.call)
    const cases: [string, string, string][] = [
      ['Todo:\n- buy milk\n- call Bob\n', 'todo.txt', 'text/plain'],
      ['# Dholes\n\nDholes hunt in packs.', 'dhole.md', 'text/markdown'],
      ['<p>Fragment about the dhole.</p><ul><li>item</li></ul>', 'frag.html', 'text/html'],
      ['- a list\n- with no name', 'notes', 'text/markdown'],
    ]
    for (const [content, name, mimeType] of cases) {
      const created = ok(await send(service, m, Buffer.from(content), name), 201)
      assert.is(created.storageInfo.mimeType, mimeType, name)
    }
    const html = ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).items.find(
      (e: any) => e.storageInfo.fileName === 'frag.html',
    )
    assert.is((await waitForTask(service.call, m.token, html.taskId)).status, 'completed')
    assert.is(
      ok(await service.call('GET', `/api/v1/knowledge/${html.id}`, { token: m.token })).content.includes('<p>'),
      false,
    )
    ok(
      await service.call('PATCH', '/api/v1/knowledge/config', {
        token: m.token,
        body: { allowedFileTypes: ['text/plain'] },
      }),
    )
    assert.is(
      ok(await send(service, m, Buffer.from('# Settings\n\n- one\n'), 'settings'), 201).storageInfo.mimeType,
      'text/plain',
    )
    const blank = expectError(await send(service, m, Buffer.from(' \n\t\n '), 'blank.txt'), 400, 'VALIDATION_ERROR')
    assert.ok(blank.details?.includes('file: the file holds only white space'), JSON.stringify(blank))
  },
)

test("a text whose first word is some format's magic bytes is text; a truncated binary file is refused", async ({
  service,
}) => {
  const m = await seedMember(service.call)
  for (const text of ['BM is the bitmap signature.', 'ID3 tags name the artist.', 'MZ opens every DOS executable.']) {
    const created = ok(await send(service, m, Buffer.from(text), 'note.txt'), 201)
    assert.is(created.storageInfo.mimeType, 'text/plain', text)
    assert.is((await waitForTask(service.call, m.token, created.taskId)).status, 'completed', text)
    assert.is(ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: m.token })).content, text)
  }
  const before = ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).total
  const refusals: [Buffer, string][] = [
    [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48]), 'truncated or damaged'],
    [Buffer.from('GIF89a\u0001\u0000\u0001\u0000\u0080\u0000\u0000', 'latin1'), 'image/gif'],
    [Buffer.from('{\\rtf1\\ansi Hello}'), 'application/rtf'],
  ]
  for (const [bytes, reason] of refusals) {
    const error = expectError(await send(service, m, bytes, 'picture.txt'), 400, 'VALIDATION_ERROR')
    assert.ok(
      error.details?.some((d) => d.includes(reason)),
      JSON.stringify(error),
    )
  }
  assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).total, before)
})

test('a file name with ../ and NUL is kept only as cleaned metadata; the blob is named by hash', async ({
  service,
  owner,
}) => {
  const created = ok(
    await send(service, owner, Buffer.from('Quolls are carnivorous marsupials.'), '../../etc/pass\u0000wd.txt', {
      title: 'Quolls',
    }),
    201,
  )
  assert.is(created.storageInfo.fileName, 'passwd.txt')
  const stored = fs.readdirSync(path.join(service.dataDir, 'blobs', created.storageInfo.sha256.slice(0, 2)))
  assert.ok(stored.includes(created.storageInfo.sha256))
  assert.not.ok(fs.existsSync(path.join(service.dataDir, 'etc')))
  await waitForTask(service.call, owner.token, created.taskId)
  // NUL anywhere else in a request is refused, never a 500.
  const error = expectError(
    await send(service, owner, Buffer.from('x'), 'x.txt', { title: 'bad\u0000title' }),
    400,
    'VALIDATION_ERROR',
  )
  assert.ok(error.details?.includes('title: must not contain NUL characters'), JSON.stringify(error))
  expectError(
    await service.call('GET', '/api/v1/knowledge?search=a%00b', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { title: 't', source: 'text', content: 'a\u0000b', metadata: { tags: ['x'] } },
    }),
    400,
    'VALIDATION_ERROR',
  )
})

test('a long file name of emoji is cut between characters, never inside one', async ({ service }) => {
  const m = await seedMember(service.call)
  const name = `${'\u{1F600}'.repeat(300)}.txt`
  const created = ok(await send(service, m, Buffer.from('Wombats make cube-shaped droppings.'), name), 201)
  assert.equal([...created.storageInfo.fileName], [...name].slice(0, 255))
  assert.is((await waitForTask(service.call, m.token, created.taskId)).status, 'completed')
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

test('a file sent without a title is titled by its file name; text without one is refused', async ({
  service,
  owner,
}) => {
  const form = new FormData()
  form.append('source', 'file')
  form.append(
    'file',
    new Blob(['# Bilbies\n\nBilbies dig spiral burrows.\n'], { type: 'text/markdown' }),
    'desert-bilby_notes.md',
  )
  const res = await fetch(`${service.url}/api/v1/knowledge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  })
  const created = ok({ status: res.status, body: await res.json(), headers: res.headers }, 201)
  assert.is(created.title, 'desert bilby notes')
  const refused = expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { source: 'text', content: 'No title.' },
    }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(refused.details, ['title: is required when source is text'])
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

test('a file over the workspace maxFileSize is refused with 413 while it streams', async ({ service }) => {
  const member = await seedMember(service.call)
  ok(await service.call('PATCH', '/api/v1/knowledge/config', { token: member.token, body: { maxFileSize: 10_000 } }))
  // A raw request: the answer arrives before the 8 MB body is sent, and the connection closes.
  const boundary = 'kbboundary'
  const head = Buffer.from(
    `--${boundary}\r\ncontent-disposition: form-data; ` +
      `name="title"\r\n\r\nbig\r\n--${boundary}\r\ncontent-disposition: form-data; ` +
      `name="source"\r\n\r\nfile\r\n--${boundary}\r\ncontent-disposition: form-data; name="file"; ` +
      `filename="big.txt"\r\ncontent-type: text/plain\r\n\r\n`,
  )
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    let sent = 0
    const req = http.request(
      `${service.url}/api/v1/knowledge`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${member.token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      },
      (res) => {
        let body = ''
        res.on('data', (c) => (body += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
      },
    )
    req.on('error', reject)
    req.write(head)
    const piece = Buffer.alloc(64 * 1024, 'a')
    const pump = () => {
      while (sent < 8 * 1024 * 1024) {
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      req.end(`\r\n--${boundary}--\r\n`)
    }
    pump()
  })
  assert.is(answer.status, 413)
  assert.is(JSON.parse(answer.body).error.code, 'PAYLOAD_TOO_LARGE')
  assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: member.token })).total, 0)
})

test(
  'deprecated upload endpoints: title from the file name, customMetadata as a JSON string, Deprecation and ' +
    'Link headers',
  async ({ service, owner }) => {
    const r = await upload(
      service.url,
      owner.token,
      { customMetadata: JSON.stringify({ category: 'legacy', tags: ['old'] }) },
      { bytes: Buffer.from('Kakapo are flightless parrots.'), name: 'kakapo_facts.txt' },
      '/api/v1/knowledge/upload/file',
    )
    const data = ok(r, 202)
    assert.is(data.status, 'pending')
    assert.type(data.message, 'string')
    assert.is(r.headers.get('deprecation'), 'true')
    assert.match(r.headers.get('link') ?? '', '</api/v1/knowledge>')
    assert.is((await waitForTask(service.call, owner.token, data.taskId)).status, 'completed')
    const entry = ok(await service.call('GET', `/api/v1/knowledge/${data.documentId}`, { token: owner.token }))
    assert.is(entry.title, 'kakapo facts')
    assert.equal(entry.metadata, { category: 'legacy', tags: ['old'] })
    expectError(
      await upload(
        service.url,
        owner.token,
        { customMetadata: '{not json' },
        { bytes: Buffer.from('x'), name: 'x.txt' },
        '/api/v1/knowledge/upload/file',
      ),
      400,
      'VALIDATION_ERROR',
    )
    // Its category, tags and author are checked as the unified endpoint checks them, never dropped in silence.
    const m = await seedMember(service.call)
    const badFile = expectError(
      await upload(
        service.url,
        m.token,
        { customMetadata: JSON.stringify({ category: 7, tags: 'urgent', author: 'Ann' }) },
        { bytes: Buffer.from('x'), name: 'x.txt' },
        '/api/v1/knowledge/upload/file',
      ),
      400,
      'VALIDATION_ERROR',
    )
    assert.equal(
      badFile.details?.map((d) => d.split(':')[0]),
      ['customMetadata.category', 'customMetadata.tags'],
    )
    const badText = expectError(
      await service.call('POST', '/api/v1/knowledge/upload', {
        token: m.token,
        body: { sourceType: 'text', content: 'x', customMetadata: { tags: 'x' } },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assert.equal(
      badText.details?.map((d) => d.split(':')[0]),
      ['customMetadata.tags'],
    )
    assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).total, 0)

    const text = await service.call('POST', '/api/v1/knowledge/upload', {
      token: owner.token,
      body: { sourceType: 'text', content: 'Takahe were thought extinct until 1948.', title: 'Takahe' },
    })
    const queued = ok(text, 202)
    assert.is(text.headers.get('deprecation'), 'true')
    assert.is((await waitForTask(service.call, owner.token, queued.taskId)).status, 'completed')
    const takahe = ok(await service.call('GET', `/api/v1/knowledge/${queued.documentId}`, { token: owner.token }))
    assert.match(takahe.content, 'thought extinct')
    expectError(
      await service.call('POST', '/api/v1/knowledge/upload', { token: owner.token, body: { sourceType: 'url' } }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await service.call('POST', '/api/v1/knowledge/upload', { token: owner.token, body: { sourceType: 'pdf' } }),
      400,
      'VALIDATION_ERROR',
    )
  },
)

test('the 21st upload in a minute answers 429 with Retry-After; other workspaces are not affected', async ({
  service,
}) => {
  const member = await seedMember(service.call)
  for (let i = 0; i < 20; i++) {
    const r = await service.call('POST', '/api/v1/knowledge/upload', {
      token: member.token,
      body: { sourceType: 'text', content: `note ${i}` },
    })
    ok(r, 202)
  }
  const refused = await upload(
    service.url,
    member.token,
    { title: 'one more', source: 'file' },
    { bytes: Buffer.from('x'), name: 'x.txt' },
  )
  expectError(refused, 429, 'RATE_LIMITED')
  const retry = Number(refused.headers.get('retry-after'))
  assert.ok(retry >= 1 && retry <= 60, String(retry))
  expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: member.token,
      body: { title: 'u', source: 'url', url: 'http://example.com/' },
    }),
    429,
    'RATE_LIMITED',
  )
  // Text entries are not uploads.
  ok(
    await service.call('POST', '/api/v1/knowledge', {
      token: member.token,
      body: { title: 't', source: 'text', content: 'still fine' },
    }),
    201,
  )
  const other = await seedMember(service.call)
  ok(
    await service.call('POST', '/api/v1/knowledge/upload', {
      token: other.token,
      body: { sourceType: 'text', content: 'other workspace' },
    }),
    202,
  )
})

test('a refused upload does not count against the limit', async ({ service }) => {
  const member = await seedMember(service.call)
  for (let i = 0; i < 21; i++) {
    // An executable (a type no workspace allows), then a deprecated upload with no file, then one whose folder does
    // not exist.
    const r =
      i % 3 === 0
        ? await upload(
            service.url,
            member.token,
            { title: `bad ${i}`, source: 'file' },
            { bytes: exe(), name: 'x.exe' },
          )
        : i % 3 === 1
          ? await upload(service.url, member.token, { title: `none ${i}` }, undefined, '/api/v1/knowledge/upload/file')
          : await service.call('POST', '/api/v1/knowledge/upload', {
              token: member.token,
              body: { sourceType: 'text', content: 'x', folderId: 'no-such-folder' },
            })
    assert.ok(r.status === 400 || r.status === 404, `${i}: ${r.status} ${JSON.stringify(r.body)}`)
  }
  ok(
    await upload(
      service.url,
      member.token,
      { title: 'good', source: 'file' },
      { bytes: Buffer.from('fine text'), name: 'x.txt' },
    ),
    201,
  )
})

test.run()
