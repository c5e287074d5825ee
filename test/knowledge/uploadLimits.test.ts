import http from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { exe } from '../../testkit/files'
import { upload } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints (size and rate limits)',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

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
