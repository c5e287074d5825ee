// The service started exactly as the README says (`npm start`), in a process group of its own, and
// stopped the way a terminal's Ctrl-C or a process manager does: a signal to the whole group.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Proc, freePort, heldCreate, start } from '../helpers/process'
import { client, seedMember } from '../helpers/service'

const test = suite('npm start: a group SIGTERM or SIGINT during a large request answers it and stops cleanly')

const RUNS = 10

/** The README's command, `npm start`, in a process group of its own. */
const startNpm = (dataDir: string, port: number) =>
  start(dataDir, port, { LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '20000' }, { npm: true })

/**
 * A 450 kB entry through Node's fetch: its head and the start of its body first, so that the
 * service has surely received the request, then the rest; the signal follows the last byte at
 * once, while the service parses, chunks and embeds it.
 */
const createDuringSignal = async (base: string, token: string, title: string, signal: () => void) => {
  const content = 'Numbats eat termites, up to 20,000 a day. '.repeat(10_700)
  const held = heldCreate(base, token, { title, source: 'text', content }, 1000)
  await new Promise((r) => setTimeout(r, 400))
  held.finish()
  setImmediate(signal)
  const res = await held.answer
  return { status: res.status, body: await res.json() }
}

test(`${RUNS} runs, SIGTERM and SIGINT in turn: answered 201, "service stopped" logged, exit 0`, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-npm-start-'))
  const port = await freePort()
  let proc: Proc | undefined
  try {
    proc = await startNpm(dataDir, port)
    const member = await seedMember(client(proc.base))
    const created: string[] = []
    for (let run = 0; run < RUNS; run++) {
      if (run > 0) proc = await startNpm(dataDir, port)
      const signal = run % 2 === 0 ? 'SIGTERM' : 'SIGINT'
      const pgid = proc.child.pid!
      const answer = await createDuringSignal(proc.base, member.token, `Run ${run}`, () => process.kill(-pgid, signal))
      const code = await proc.exited
      const context = `run ${run} (${signal}): ${proc.output().slice(-3000)}`
      assert.is(answer.status, 201, context)
      created.push(answer.body.data.id)
      assert.match(proc.output(), /service stopped/, context)
      assert.not.match(proc.output(), /timed out/, context)
      assert.is(code, 0, context)
    }
    proc = await startNpm(dataDir, port)
    const call = client(proc.base)
    for (const id of created)
      assert.is((await call('GET', `/api/v1/knowledge/${id}`, { token: member.token })).status, 200)
    process.kill(-proc.child.pid!, 'SIGTERM')
    assert.is(await proc.exited, 0)
  } finally {
    if (proc && proc.child.exitCode === null) process.kill(-proc.child.pid!, 'SIGKILL')
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test.run()
