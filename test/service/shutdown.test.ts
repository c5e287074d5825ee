import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Proc, freePort, heldCreate, start } from '../helpers/process'
import { type Call, client, ok, seedMember } from '../helpers/service'

const test = suite('stopping cleanly: SIGTERM with keep-alive clients, requests in flight, a burst of creates')

const TIMEOUT_MS = 8000
const env = { SHUTDOWN_TIMEOUT_MS: String(TIMEOUT_MS) }

/** A service process on a fresh DATA_DIR (`restart` starts it again there); killed and its files removed after. */
const withService = async (body: (s: { proc: Proc; port: number; restart(): Promise<Proc> }) => Promise<void>) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-stop-'))
  const port = await freePort()
  const s = {
    proc: await start(dataDir, port, env),
    port,
    restart: async () => (s.proc = await start(dataDir, port, env)),
  }
  try {
    await body(s)
  } finally {
    s.proc.child.kill('SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Sends SIGTERM and answers the exit code and how long the stop took. */
const terminate = async (proc: Proc) => {
  const began = Date.now()
  proc.child.kill('SIGTERM')
  const code = await proc.exited
  return { code, ms: Date.now() - began }
}

const create = (call: Call, token: string, title: string, content = `${title}: quokkas live on Rottnest Island.`) =>
  call('POST', '/api/v1/knowledge', { token, body: { title, content, source: 'text' } })

/** One request on a keep-alive agent: the socket stays open, idle, once it is answered. */
const keepAliveRequest = (agent: http.Agent, base: string, p: string, token: string, body: unknown) =>
  new Promise<{ status: number; connection?: string; body: any }>((resolve, reject) => {
    const req = http.request(
      base + p,
      { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        let text = ''
        res.on('data', (d) => (text += d))
        res.on('end', () =>
          resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }),
        )
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })

test(
  'SIGTERM with a keep-alive client idle: exit 0 in time, and the search citations pending are counted ' +
    'after restart',
  async () => {
    await withService(async (s) => {
      const call = client(s.proc.base)
      const m = await seedMember(call)
      const entry = ok(await create(call, m.token, 'Quokka facts'), 201)
      const agent = new http.Agent({ keepAlive: true })
      const found = await keepAliveRequest(agent, s.proc.base, '/api/v1/knowledge/search', m.token, {
        query: 'quokkas Rottnest',
        mode: 'text',
        minScore: 0,
      })
      assert.is(found.status, 200)
      assert.equal(
        found.body.data.results.map((r: any) => r.id),
        [entry.id],
      )
      assert.is(found.connection, 'keep-alive', 'the socket stays open')
      // The search's citation waits up to 100 ms to be appended with others: the signal comes first.
      const { code, ms } = await terminate(s.proc)
      assert.is(code, 0, s.proc.output())
      assert.ok(ms < TIMEOUT_MS, `stopped in ${ms} ms`)
      assert.not.match(s.proc.output(), /timed out/)
      agent.destroy()
      await s.restart()
      const after = ok(await client(s.proc.base)('GET', `/api/v1/knowledge/${entry.id}`, { token: m.token }))
      assert.is(after.citedCount, 1, 'the citation pending at the signal was appended')
      assert.is((await terminate(s.proc)).code, 0)
    })
  },
)

test(
  'SIGTERM mid-request: the request whose head arrived is answered with Connection: close, then the ' +
    'service exits 0',
  async () => {
    await withService(async (s) => {
      const call = client(s.proc.base)
      const m = await seedMember(call)
      const body = Buffer.from(
        JSON.stringify({ title: 'Sent in two halves', content: 'Numbats eat termites. '.repeat(200), source: 'text' }),
      )
      const socket = net.connect(s.port, '127.0.0.1')
      let received = ''
      socket.on('data', (d) => (received += d.toString()))
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
      socket.write(
        [
          `POST /api/v1/knowledge HTTP/1.1`,
          `Host: 127.0.0.1:${s.port}`,
          `Authorization: Bearer ${m.token}`,
          'Content-Type: application/json',
          `Content-Length: ${body.length}`,
          'Connection: keep-alive',
          '',
          '',
        ].join('\r\n'),
      )
      socket.write(body.subarray(0, 1000))
      await new Promise((r) => setTimeout(r, 300))
      const stopped = terminate(s.proc)
      await new Promise((r) => setTimeout(r, 300))
      socket.write(body.subarray(1000))
      await closed
      const [head, json] = received.split('\r\n\r\n')
      assert.match(head, /^HTTP\/1.1 201 /, `received: ${received}; ${s.proc.output()}`)
      assert.match(head, /\r\nconnection: close/i)
      const id = JSON.parse(json).data.id
      const { code, ms } = await stopped
      assert.is(code, 0, s.proc.output())
      assert.ok(ms < TIMEOUT_MS, `stopped in ${ms} ms`)
      await s.restart()
      ok(await client(s.proc.base)('GET', `/api/v1/knowledge/${id}`, { token: m.token }))
      assert.is((await terminate(s.proc)).code, 0)
    })
  },
)

test(
  '50 concurrent creates, SIGTERM after 5 are acknowledged, 10 times: each acknowledged (and kept) or ' +
    'refused 503, none reset',
  async () => {
    await withService(async (s) => {
      const m = await seedMember(client(s.proc.base))
      const acknowledged: string[] = []
      let refused = 0
      for (let run = 0; run < 10; run++) {
        if (run > 0) await s.restart()
        const call = client(s.proc.base)
        let acks = 0
        let stopped: ReturnType<typeof terminate> | undefined
        const outcomes = await Promise.all(
          Array.from({ length: 50 }, async (_, i) => {
            try {
              const r = await create(call, m.token, `Run ${run} create ${i}`)
              if (r.status === 201 && ++acks === 5) stopped = terminate(s.proc)
              return { status: r.status, id: r.body?.data?.id as string | undefined, code: r.body?.error?.code }
            } catch (error) {
              return {
                status: 0,
                error: `${(error as Error).message} (${String((error as { cause?: unknown }).cause)})`,
              }
            }
          }),
        )
        const { code } = await (stopped ?? terminate(s.proc))
        assert.is(code, 0, s.proc.output())
        for (const o of outcomes) {
          assert.ok(
            o.status === 201 || (o.status === 503 && o.code === 'SERVICE_UNAVAILABLE'),
            `run ${run}: ${JSON.stringify(o)}`,
          )
          if (o.status === 201) acknowledged.push(o.id!)
          else refused++
        }
      }
      await s.restart()
      const call = client(s.proc.base)
      const list = ok(await call('GET', '/api/v1/knowledge?limit=100&page=1', { token: m.token }))
      assert.is(
        list.total,
        acknowledged.length,
        `${acknowledged.length} acknowledged and ${refused} refused: only the acknowledged exist`,
      )
      for (const id of acknowledged)
        assert.is((await call('GET', `/api/v1/knowledge/${id}`, { token: m.token })).status, 200)
      assert.ok(acknowledged.length >= 50, 'at least the five of each run')
    })
  },
)

/** A create whose body is held back after its first bytes; its answer a status or the transport's failure. */
const heldUntilFinished = (base: string, token: string, title: string) => {
  const held = heldCreate(base, token, { title, source: 'text', content: 'Quokkas hop. '.repeat(500) }, 100)
  return {
    answer: held.answer.then(
      (r) => r.status,
      (error: Error) => `failed: ${error.message}`,
    ),
    finish: held.finish,
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

test('a second signal during a stop is logged as a stop under way; the request is answered', async () => {
  await withService(async (s) => {
    const m = await seedMember(client(s.proc.base))
    const held = heldUntilFinished(s.proc.base, m.token, 'Held while stopping')
    await pause(300)
    s.proc.child.kill('SIGTERM')
    await pause(200)
    s.proc.child.kill('SIGINT')
    await pause(200)
    assert.match(s.proc.output(), /a stop is under way/)
    held.finish()
    assert.is(await held.answer, 201)
    assert.is(await s.proc.exited, 0, s.proc.output())
    assert.not.match(s.proc.output(), /forced exit/)
  })
})

test('a third signal forces the exit (code 1) and logs the request still open', async () => {
  await withService(async (s) => {
    const m = await seedMember(client(s.proc.base))
    const held = heldUntilFinished(s.proc.base, m.token, 'Never finished')
    await pause(300)
    for (const signal of ['SIGTERM', 'SIGTERM', 'SIGINT'] as const) {
      s.proc.child.kill(signal)
      await pause(200)
    }
    assert.is(await s.proc.exited, 1)
    assert.match(s.proc.output(), /"requests":\["POST \/api\/v1\/knowledge"\][^\n]*forced exit/)
    assert.match(String(await held.answer), /^failed/)
  })
})

test.run()
