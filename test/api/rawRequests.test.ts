import net from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API shell: raw connections')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

/**
 * Sends the head of a request declaring a 7 MB JSON body and 1 KB of it, then waits for an answer
 * while the rest is still unsent; answers the response head and whether the server closed.
 */
const answeredBeforeBody = (url: string, method: string, path: string, headers: Record<string, string> = {}) =>
  new Promise<{ head: string; closed: boolean }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port), hostname)
    let received = ''
    let closed = false
    const timer = setTimeout(() => reject(new Error(`no answer while the body was unsent: ${received}`)), 5000)
    socket.on('data', (d) => {
      received += d.toString('latin1')
    })
    socket.on('error', () => {})
    socket.on('close', () => {
      closed = true
      clearTimeout(timer)
      resolve({ head: received.split('\r\n\r\n')[0], closed })
    })
    const head = [
      `${method} ${path} HTTP/1.1`,
      `Host: ${hostname}`,
      'Content-Type: application/json',
      'Content-Length: 7000000',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
      '',
      '',
    ].join('\r\n')
    socket.write(head + `{"name": "${'x'.repeat(1024)}`)
  })

test('no credentials, or no such route: answered before the body is read, and the connection closed', async ({
  svc,
}) => {
  for (const [method, path, headers, status] of [
    ['POST', '/api/v1/knowledge', {}, '401'],
    ['POST', '/api/v1/knowledge', { Authorization: 'Bearer not-a-token' }, '401'],
    ['POST', '/api/v1/admin/users', { Authorization: 'Bearer wrong' }, '401'],
    ['POST', '/mcp', {}, '401'],
    ['POST', '/api/v1/no-such-route', {}, '404'],
    ['POST', '/health', {}, '405'],
  ] as const) {
    const { head, closed } = await answeredBeforeBody(svc.url, method, path, headers)
    assert.match(head, new RegExp(`^HTTP/1.1 ${status} `), `${method} ${path}: ${head}`)
    assert.match(head, /\r\nconnection: close/i, `${method} ${path}: ${head}`)
    assert.ok(closed)
  }
  // Health still answers at once.
  ok(await svc.call('GET', '/health'))
})

/** Writes raw bytes to the service and answers the status line and body of its answer. */
const rawExchange = (url: string, bytes: Buffer) =>
  new Promise<{ head: string; body: string }>((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = net.connect(Number(port), hostname)
    let received = ''
    socket.on('data', (d) => (received += d.toString('utf8')))
    socket.on('error', reject)
    socket.on('close', () => {
      const [head, ...body] = received.split('\r\n\r\n')
      resolve({ head, body: body.join('\r\n\r\n') })
    })
    socket.end(bytes)
  })

test(
  'rough input at the edge is refused with 400 in the envelope: NUL or bad escapes in a path, bytes that ' +
    'are not UTF-8, a malformed request',
  async ({ svc }) => {
    const m = await seedMember(svc.call)
    for (const [method, path] of [
      ['GET', '/packs/x%00y'],
      ['POST', '/packs/x%00y/mcp'],
      ['GET', '/api/v1/knowledge/%00'],
      ['GET', '/api/v1/knowledge/%E0%A4%A'],
    ] as const) {
      const e = expectError(
        await svc.call(method, path, { token: m.token, ...(method === 'POST' ? { body: {} } : {}) }),
        400,
        'VALIDATION_ERROR',
      )
      assert.match(e.details![0], /^\(path\): /, `${method} ${path}`)
    }
    const before = ok(await svc.call('GET', '/api/v1/knowledge', { token: m.token })).total
    const latin1 = Buffer.concat([
      Buffer.from('{"title":"Caf'),
      Buffer.from([0xe9]),
      Buffer.from('","content":"x","source":"text"}'),
    ])
    const res = await fetch(`${svc.url}/api/v1/knowledge`, {
      method: 'POST',
      headers: { authorization: `Bearer ${m.token}`, 'content-type': 'application/json' },
      body: latin1,
    })
    assert.is(res.status, 400)
    assert.equal((await res.json()).error.details, ['(body): holds bytes that are not UTF-8'])
    assert.is(ok(await svc.call('GET', '/api/v1/knowledge', { token: m.token })).total, before, 'nothing stored')
    const malformed = await rawExchange(svc.url, Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n'))
    assert.match(malformed.head, /^HTTP\/1.1 400 /)
    assert.is(JSON.parse(malformed.body).error.code, 'VALIDATION_ERROR')
  },
)

test.run()
