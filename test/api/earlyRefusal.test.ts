// Refusals answered before the client has sent its whole body (too large, no credentials, no such
// route) must reach the client: the service keeps reading and discarding the rest for a while
// before it closes, so the client's last writes are not met by a reset that destroys the answer.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Proc, freePort, start } from '../helpers/process'
import { type Member, client, seedMember } from '../helpers/service'

// The service in a process of its own, as clients meet it (in the test's process the client and
// the service take turns on one event loop, which hides the race).
const test = suite<{ service: { url: string; proc: Proc; dataDir: string }; member: Member }>(
  'early refusals: clients read the answer, never a reset',
)

test.before(async (ctx) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-refusal-'))
  const proc = await start(dataDir, await freePort())
  ctx.service = { url: proc.base, proc, dataDir }
  ctx.member = await seedMember(client(proc.base))
})
test.after(async ({ service }) => {
  service.proc.child.kill('SIGTERM')
  await service.proc.exited
  fs.rmSync(service.dataDir, { recursive: true, force: true })
})

/** Keeps both cores busy (the machine "under load") until stopped. */
const burnCores = () => {
  const burners = [0, 1].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }))
  return { terminate: async () => burners.forEach((b) => b.kill('SIGKILL')) }
}

const eleven = new Uint8Array(11 * 1024 * 1024).fill(0x61)

/** An 11 MB file through Node's fetch and FormData: the answer, or the transport error by name. */
const upload = async (url: string, headers: Record<string, string>) => {
  const form = new FormData()
  form.set('source', 'file')
  form.set('title', 'Too large')
  form.set('file', new Blob([eleven], { type: 'text/plain' }), 'big.txt')
  try {
    const res = await fetch(url, { method: 'POST', headers, body: form })
    return { status: res.status, body: await res.json() }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return { status: 0, body: `${(error as Error).message}: ${cause?.code ?? cause?.message}` }
  }
}

test('an 11 MB upload over maxFileSize, 20 times while a core is busy: always the 413 envelope', async ({
  service,
  member,
}) => {
  const burner = burnCores()
  try {
    for (let i = 0; i < 20; i++) {
      const r = await upload(`${service.url}/api/v1/knowledge`, { authorization: `Bearer ${member.token}` })
      assert.is(r.status, 413, `try ${i}: ${JSON.stringify(r.body)}`)
      assert.is(r.body.error.code, 'PAYLOAD_TOO_LARGE')
    }
  } finally {
    await burner.terminate()
  }
})

test('the same upload with no credentials, a bad token or to no route: 401, 401, 404, each read by fetch', async ({
  service,
}) => {
  const burner = burnCores()
  try {
    for (let i = 0; i < 5; i++) {
      const none = await upload(`${service.url}/api/v1/knowledge`, {})
      assert.is(none.status, 401, JSON.stringify(none.body))
      assert.is(none.body.error.code, 'UNAUTHORIZED')
      const bad = await upload(`${service.url}/api/v1/knowledge`, { authorization: 'Bearer nope' })
      assert.is(bad.status, 401, JSON.stringify(bad.body))
      assert.is(bad.body.error.code, 'INVALID_TOKEN')
      const nowhere = await upload(`${service.url}/api/v1/nowhere`, {})
      assert.is(nowhere.status, 404, JSON.stringify(nowhere.body))
    }
  } finally {
    await burner.terminate()
  }
})

test('the connection is closed after the refusal, and the service answers the next request', async ({
  service,
  member,
}) => {
  const r = await upload(`${service.url}/api/v1/knowledge`, { authorization: `Bearer ${member.token}` })
  assert.is(r.status, 413)
  const health = await fetch(`${service.url}/health`)
  assert.is(health.status, 200)
})

test.run()
