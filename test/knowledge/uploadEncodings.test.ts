import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { pdf } from '../../testkit/files'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { send, startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints (text encodings)',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

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

test.run()
