import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { DOCX } from '../../ingestion/sniff'
import { docx, exe, plainZip } from '../../testkit/files'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { send, startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints (types decided by content)',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

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

test.run()
