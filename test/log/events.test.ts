import { Writable } from 'node:stream'
import pino from 'pino'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { until as waitUntil } from '../helpers/until'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

interface Sse {
  id?: string
  event?: string
  data?: any
  comment?: string
}

/** An open event stream: its messages as they arrive, and a way to wait for some and to hang up. */
const open = async (svc: TestService, token: string, query = '', headers: Record<string, string> = {}) => {
  const abort = new AbortController()
  const res = await fetch(`${svc.url}/api/v1/events/stream${query}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
    signal: abort.signal,
  })
  const messages: Sse[] = []
  let buffer = ''
  const reading = (async () => {
    const decoder = new TextDecoder()
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true })
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const m: Sse = {}
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) m.comment = line.slice(1).trim()
            else if (line.startsWith('id: ')) m.id = line.slice(4)
            else if (line.startsWith('event: ')) m.event = line.slice(7)
            else if (line.startsWith('data: ')) m.data = JSON.parse(line.slice(6))
          }
          messages.push(m)
        }
      }
    } catch {}
  })()
  const events = () => messages.filter((m) => m.id)
  const until = (done: () => boolean, what: string) => waitUntil(what, done, 10_000)
  return { res, messages, events, until, ended: reading, close: () => abort.abort() }
}

const test = suite<{ svc: TestService; m: Member }>('live events: Server-Sent Events of the workspace')
test.before(async (ctx) => {
  ctx.svc = await startTestService({ EVENTS_HEARTBEAT_MS: '300' })
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const write = async ({ svc, m }: { svc: TestService; m: Member }, title: string) =>
  ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title, content: `${title} content.`, source: 'text' },
    }),
    201,
  )

test('resumed after a disconnect with Last-Event-ID: nothing lost, nothing twice, in order', async (ctx) => {
  const { svc, m } = ctx
  const first = await open(svc, m.token)
  assert.is(first.res.status, 200)
  assert.match(first.res.headers.get('content-type') ?? '', /^text\/event-stream/)
  await write(ctx, 'Alpha')
  await first.until(() => first.events().some((e) => e.data.data?.title === 'Alpha'), 'Alpha')
  first.close()
  const seen = first.events()
  const lastId = seen[seen.length - 1].id!
  // Written while no one listens.
  await write(ctx, 'Beta')
  await write(ctx, 'Gamma')
  // Reconnecting to the same URL as before (after=0) with the last id seen: the later position wins.
  const second = await open(svc, m.token, '?after=0', { 'last-event-id': lastId })
  await write(ctx, 'Delta')
  await second.until(() => second.events().some((e) => e.data.data?.title === 'Delta'), 'Delta')
  second.close()
  const all = [...seen, ...second.events()]
  const positions = all.map((e) => Number(e.id))
  assert.equal(
    positions,
    [...new Set(positions)].sort((a, b) => a - b),
    'increasing, no duplicates',
  )
  // The whole trail, as the audit endpoint lists it, was delivered across the two connections.
  const trail = ok(await svc.call('GET', '/api/v1/audit/events?after=0&limit=100', { token: m.token }))
  assert.equal(
    positions,
    trail.events.map((e: any) => e.position).filter((p: number) => p <= positions[positions.length - 1]),
  )
  const titles = all.filter((e) => e.event === 'EntryCreated').map((e) => e.data.data.title)
  assert.equal(titles, ['Alpha', 'Beta', 'Gamma', 'Delta'])
  assert.equal(all[0].data, trail.events[0], 'each event as the audit endpoint shows it')
})

test('after= and filters by type and stream; a heartbeat when silent', async (ctx) => {
  const { svc, m } = ctx
  const e = await write(ctx, 'Epsilon')
  ok(await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, { token: m.token, body: { title: 'Epsilon 2' } }))
  const byStream = await open(svc, m.token, `?after=0&streamId=entry-${e.id}`)
  await byStream.until(() => byStream.events().length >= 2, 'the stream events')
  assert.ok(byStream.events().every((x) => x.data.streamId === `entry-${e.id}`))
  await byStream.until(() => byStream.messages.some((x) => x.comment?.startsWith('heartbeat')), 'a heartbeat')
  byStream.close()
  const byType = await open(svc, m.token, '?after=0&type=EntryUpdated')
  await byType.until(() => byType.events().length >= 1, 'EntryUpdated')
  assert.ok(byType.events().every((x) => x.event === 'EntryUpdated'))
  byType.close()
})

test('a member who does not manage the workspace follows what it may read, nothing of its accounts', async (ctx) => {
  const { svc, m } = ctx
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  const ownerSees = await open(svc, m.token, '?after=0')
  const viewerSees = await open(svc, viewer.token, '?after=0')
  assert.is(viewerSees.res.status, 200)
  const entry = await write(ctx, 'Zeta')
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Zeta folder' } }), 201)
  ok(await svc.call('POST', '/api/v1/knowledge/search', { token: viewer.token, body: { query: 'zeta' } }))
  // An agent's page: its author shows the client, and the key's id only to those who manage the workspace.
  const key = await newKey(svc.call, m.workspaceId, 'zeta-bot')
  ok(await tool(svc.call, key.api_key, 'page_write', { title: 'Zeta page', content: 'Written by an agent.' }))
  const written = (s: typeof ownerSees) => s.events().find((e) => e.event === 'PageVersionWritten')
  await ownerSees.until(() => !!written(ownerSees), 'the owner sees the page')
  await viewerSees.until(() => !!written(viewerSees), 'the viewer too')
  assert.is(written(ownerSees)?.data.data.author.keyId, key.id)
  assert.equal(written(viewerSees)?.data.data.author, { kind: 'agent', client: 'zeta-bot' })
  assert.not.ok(JSON.stringify(viewerSees.events()).includes(key.id), "the key's id nowhere in the viewer's stream")
  const kinds = (s: typeof ownerSees) => new Set(s.events().map((e) => String(e.data.streamId).split('-')[0]))
  // The owner sees the member's and the search's streams too; the viewer only knowledge it may read.
  for (const kind of ['member', 'entry', 'folder']) assert.ok(kinds(ownerSees).has(kind), `the owner sees ${kind}`)
  assert.equal([...kinds(viewerSees)].sort(), ['entry', 'folder', 'page'])
  assert.ok(viewerSees.events().some((e) => e.data.streamId === `entry-${entry.id}`))
  ownerSees.close()
  viewerSees.close()
})

test('after=now: from the last event on; a Last-Event-ID sent with it wins', async (ctx) => {
  const { svc, m } = ctx
  await write(ctx, 'Before now')
  const trail = ok(await svc.call('GET', '/api/v1/audit/events?limit=1', { token: m.token }))
  const head = trail.events[0].position
  const live = await open(svc, m.token, '?after=now')
  await live.until(() => live.messages.length > 0, 'the stream open')
  await write(ctx, 'After now')
  await live.until(() => live.events().some((e) => e.data.data?.title === 'After now'), 'the new event')
  assert.ok(
    live.events().every((e) => Number(e.id) > head),
    'nothing from before it opened',
  )
  live.close()
  const resumed = await open(svc, m.token, '?after=now', { 'last-event-id': String(head) })
  await resumed.until(() => resumed.events().some((e) => e.data.data?.title === 'After now'), 'resumed')
  const next = ok(await svc.call('GET', `/api/v1/audit/events?after=${head}&limit=1`, { token: m.token }))
  assert.is(Number(resumed.events()[0].id), next.events[0].position, 'from the first event after the one it saw')
  resumed.close()
})

test('a bad Last-Event-ID or query is a 400 in the envelope', async ({ svc, m }) => {
  const bad = await fetch(`${svc.url}/api/v1/events/stream`, {
    headers: { authorization: `Bearer ${m.token}`, 'last-event-id': 'yesterday' },
  })
  assert.is(bad.status, 400)
  assert.match(JSON.stringify(await bad.json()), /Last-Event-ID/)
  for (const after of ['-1', 'later', 'now1'])
    expectError(
      await svc.call('GET', `/api/v1/events/stream?after=${after}`, { token: m.token }),
      400,
      'VALIDATION_ERROR',
    )
})

test('the OpenAPI document describes the stream as text/event-stream', async ({ svc }) => {
  const doc = (await svc.call('GET', '/api/v1/openapi.json')).body
  const op = doc.paths['/api/v1/events/stream'].get
  assert.ok(op.responses['2XX'].content['text/event-stream'])
})

test('a client that hangs up is logged as leaving (below error level), not as a failed request', async () => {
  const lines: { level: number; msg: string }[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line))
      done()
    },
  })
  const svc = await startTestService({ EVENTS_HEARTBEAT_MS: '100' }, undefined, { log: pino({ level: 'debug' }, sink) })
  try {
    const m = await seedMember(svc.call, 'owner')
    for (let i = 0; i < 3; i++) {
      const stream = await open(svc, m.token)
      await stream.until(() => stream.messages.some((x) => x.comment?.startsWith('heartbeat')), 'a heartbeat')
      stream.close()
      await stream.ended
    }
    await waitUntil(
      'the departures logged',
      () => lines.filter((l) => /client (went away|closed)/.test(l.msg)).length >= 3,
    )
    const errors = lines.filter((l) => l.level >= 50)
    assert.equal(errors, [], 'nothing at error level')
  } finally {
    await svc.stop()
  }
})

test('an open stream ends when the service stops, and the stop does not wait for it', async () => {
  const svc = await startTestService()
  const m = await seedMember(svc.call, 'owner')
  const stream = await open(svc, m.token)
  await stream.until(() => stream.messages.length > 0, 'the first message')
  await svc.stop()
  await stream.ended
  assert.ok(stream.messages.length > 0)
})

test.run()
