import { createHmac } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Webhook } from 'standardwebhooks'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { freePort, start } from '../helpers/process'
import { until as waitUntil } from '../helpers/until'
import {
  type Member,
  type TestService,
  client,
  expectError,
  ok,
  seedMember,
  startTestService,
} from '../helpers/service'

interface Received {
  headers: http.IncomingHttpHeaders
  body: string
}

/** A receiver on 127.0.0.1: `answer` decides each request's status (or undefined: never answer). */
const receiver = async (answer: (n: number, r: Received) => number | undefined) => {
  const received: Received[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const r = { headers: req.headers, body }
      received.push(r)
      const status = answer(received.length, r)
      if (status !== undefined) res.writeHead(status).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  const until = (done: () => boolean, what: string) => waitUntil(what, done)
  return { url, received, until, close: () => (server.closeAllConnections(), server.close()) }
}

const test = suite<{ svc: TestService; m: Member }>('webhooks: signed deliveries, retries, the delivery log')
test.before(async (ctx) => {
  ctx.svc = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms,300ms,400ms' })
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const entry = async (svc: TestService, m: Member, title: string) =>
  ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title, content: `${title} content.`, source: 'text' },
    }),
    201,
  )

test('fails twice, then succeeds: each try signed (reference algorithm), the retries in the log', async ({
  svc,
  m,
}) => {
  const rx = await receiver((n) => (n <= 2 ? 500 : 204))
  try {
    const hook = ok(
      await svc.call('POST', '/api/v1/webhooks', { token: m.token, body: { url: rx.url, events: ['EntryCreated'] } }),
      201,
    )
    assert.match(hook.secret, /^whsec_/)
    assert.equal([hook.status, hook.events], ['enabled', ['EntryCreated']])
    const e = await entry(svc, m, 'Wombat')
    await rx.until(() => rx.received.length >= 3, 'three tries')
    const wh = new Webhook(hook.secret)
    const ids = new Set<string>()
    for (const r of rx.received) {
      const headers = r.headers as Record<string, string>
      // The specification's reference implementation verifies each try...
      const payload = wh.verify(r.body, headers) as any
      assert.equal([payload.type, payload.data.type, payload.data.data.entryId], ['EntryCreated', 'EntryCreated', e.id])
      // ...and so does its algorithm, written out: HMAC-SHA256 of "id.timestamp.body" with the base64-decoded secret.
      const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64')
      const expected = createHmac('sha256', key)
        .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${r.body}`)
        .digest('base64')
      assert.ok(headers['webhook-signature'].split(' ').includes(`v1,${expected}`))
      ids.add(headers['webhook-id'])
    }
    assert.is(ids.size, 1, 'every try of one event has the same webhook-id')
    // The log lists the tries, newest first.
    let log: any
    for (let i = 0; i < 50; i++) {
      log = ok(await svc.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: m.token }))
      if (log.deliveries.length >= 3) break
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.equal(
      log.deliveries.map((d: any) => [d.attempt, d.statusCode, d.delivered]),
      [
        [3, 204, true],
        [2, 500, false],
        [1, 500, false],
      ],
    )
    assert.ok(log.deliveries[2].nextAttemptAt && log.deliveries[2].error.includes('HTTP 500'))
    assert.is(log.deliveries[0].deliveryId, [...ids][0])
    const after = ok(await svc.call('GET', `/api/v1/webhooks/${hook.id}`, { token: m.token }))
    assert.equal([after.status, after.failures, after.deliveredUpTo], ['enabled', 0, log.deliveries[0].eventPosition])
    assert.is(after.secret, undefined, 'the secret is shown once')
    // A retry sends that delivery again now, with the same webhook-id.
    const retried = ok(
      await svc.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${log.deliveries[0].deliveryId}/retry`, {
        token: m.token,
      }),
    )
    assert.equal([retried.delivered, retried.statusCode, retried.attempt], [true, 204, 4])
    assert.is(rx.received[3].headers['webhook-id'], log.deliveries[0].deliveryId)
    const again = ok(await svc.call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: m.token }))
    assert.equal([again.deliveries[0].attempt, again.deliveries[0].manual], [4, true])
    ok(await svc.call('DELETE', `/api/v1/webhooks/${hook.id}`, { token: m.token }))
  } finally {
    rx.close()
  }
})

test('every event type with *, in log order; after the last retry the webhook is disabled', async ({ svc, m }) => {
  const good = await receiver(() => 200)
  const bad = await receiver(() => 503)
  try {
    const all = ok(
      await svc.call('POST', '/api/v1/webhooks', { token: m.token, body: { url: good.url, events: ['*'] } }),
      201,
    )
    const failing = ok(
      await svc.call('POST', '/api/v1/webhooks', { token: m.token, body: { url: bad.url, events: ['EntryCreated'] } }),
      201,
    )
    for (const title of ['One', 'Two', 'Three']) await entry(svc, m, title)
    await good.until(
      () => good.received.filter((r) => JSON.parse(r.body).type === 'EntryCreated').length >= 3,
      'three creations',
    )
    const events = good.received.map((r) => JSON.parse(r.body).data)
    const positions = events.map((e) => e.position)
    assert.equal(
      positions,
      [...positions].sort((a, b) => a - b),
    )
    assert.equal(
      events.filter((e) => e.type === 'EntryCreated').map((e) => e.data.title),
      ['One', 'Two', 'Three'],
    )
    // Its own registration secret never travels: events show what the audit trail shows.
    assert.not.ok(good.received.some((r) => r.body.includes('whsec_')))
    // Nor its URL's path (often a credential itself): the trail shows where a webhook points.
    const registered = events.find((e) => e.type === 'WebhookRegistered' && e.data.webhookId === failing.id)
    assert.is(registered?.data.url, `${new URL(bad.url).origin}/…`)
    // 1 try and 3 retries, then disabled; the next events are not sent.
    await bad.until(() => bad.received.length >= 4, 'four tries')
    let hook: any
    for (let i = 0; i < 50; i++) {
      hook = ok(await svc.call('GET', `/api/v1/webhooks/${failing.id}`, { token: m.token }))
      if (hook.status === 'disabled') break
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.is(hook.status, 'disabled')
    assert.match(hook.disabledReason, /after 4 failed tries .*HTTP 503/)
    await new Promise((r) => setTimeout(r, 700))
    assert.is(bad.received.length, 4)
    const listed = ok(await svc.call('GET', '/api/v1/webhooks', { token: m.token })).webhooks
    assert.equal(listed.map((w: any) => w.id).sort(), [all.id, failing.id].sort())
  } finally {
    good.close()
    bad.close()
  }
})

test('bad input: 400 in the envelope; viewers 403; another workspace 404; private URLs refused', async ({ svc, m }) => {
  const post = (body: unknown, token = m.token) => svc.call('POST', '/api/v1/webhooks', { token, body })
  expectError(await post({ url: 'ftp://example.com/x', events: ['EntryCreated'] }), 400, 'VALIDATION_ERROR')
  expectError(await post({ url: 'https://example.com/x', events: [] }), 400, 'VALIDATION_ERROR')
  expectError(await post({ url: 'https://example.com/x', events: ['Entry Created'] }), 400, 'VALIDATION_ERROR')
  expectError(await post({ url: 'https://example.com/x', events: ['*'], secret: 'hunter2' }), 400, 'VALIDATION_ERROR')
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  expectError(await post({ url: 'https://example.com/x', events: ['*'] }, viewer.token), 403, 'FORBIDDEN')
  const hook = ok(await post({ url: 'https://example.com/x', events: ['*'] }), 201)
  const other = await seedMember(svc.call, 'owner')
  expectError(await svc.call('GET', `/api/v1/webhooks/${hook.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(await svc.call('DELETE', `/api/v1/webhooks/${hook.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('POST', `/api/v1/webhooks/${hook.id}/deliveries/${hook.id}.1/retry`, { token: m.token }),
    404,
    'NOT_FOUND',
  )
  ok(await svc.call('DELETE', `/api/v1/webhooks/${hook.id}`, { token: m.token }))
  // Without KB_ALLOW_PRIVATE_URLS, a webhook on a private address is refused as a URL to ingest would be.
  const strict = await startTestService()
  try {
    const owner = await seedMember(strict.call, 'owner')
    const refused = await strict.call('POST', '/api/v1/webhooks', {
      token: owner.token,
      body: { url: 'http://127.0.0.1:9/hook', events: ['*'] },
    })
    expectError(refused, 400, 'VALIDATION_ERROR')
    assert.match(refused.body.error.details.join(' '), /url: refused/)
  } finally {
    await strict.stop()
  }
})

test('a delivery in flight survives a SIGKILL of its process: sent again after a restart, then the next', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-webhook-'))
  const port = await freePort()
  // The first try never gets an answer: the process is killed while it waits.
  const rx = await receiver((n) => (n === 1 ? undefined : 200))
  const env = { KB_ALLOW_PRIVATE_URLS: 'true' }
  try {
    let proc = await start(dataDir, port, env)
    let call = client(proc.base)
    const m = await seedMember(call, 'owner')
    const hook = ok(
      await call('POST', '/api/v1/webhooks', { token: m.token, body: { url: rx.url, events: ['EntryCreated'] } }),
      201,
    )
    const create = (title: string) =>
      call('POST', '/api/v1/knowledge', { token: m.token, body: { title, content: 'x', source: 'text' } })
    ok(await create('First'), 201)
    await rx.until(() => rx.received.length >= 1, 'the first try')
    proc.child.kill('SIGKILL')
    await proc.exited
    proc = await start(dataDir, port, env)
    call = client(proc.base)
    ok(await create('Second'), 201)
    await rx.until(() => rx.received.length >= 3, 'the first again, then the second')
    const titles = rx.received.map((r) => JSON.parse(r.body).data.data.title)
    assert.equal(titles.slice(0, 3), ['First', 'First', 'Second'])
    assert.is(rx.received[0].headers['webhook-id'], rx.received[1].headers['webhook-id'])
    let log: any
    for (let i = 0; i < 50; i++) {
      log = ok(await call('GET', `/api/v1/webhooks/${hook.id}/deliveries`, { token: m.token }))
      if (log.deliveries.length >= 2) break
      await new Promise((r) => setTimeout(r, 100))
    }
    // The killed try was never recorded: the log has each event delivered once.
    assert.equal(
      log.deliveries.map((d: any) => [d.eventType, d.attempt, d.delivered]),
      [
        ['EntryCreated', 1, true],
        ['EntryCreated', 1, true],
      ],
    )
    proc.child.kill('SIGTERM')
    await proc.exited
  } finally {
    rx.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test.run()
