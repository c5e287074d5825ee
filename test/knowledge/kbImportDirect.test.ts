import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { freePort, kbCli } from '../helpers/process'
import { until } from '../helpers/until'
import { ADMIN, type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

const test = suite('kb import: with no service running it starts one of its own; searches during an import')

let dir: string
test.before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-import-direct-'))
})
test.after(() => fs.rmSync(dir, { recursive: true, force: true }))

/** The CLI on a data directory where no service answers (a free port, no KB_URL), and how it exited. */
const kbAlone = async (dataDir: string, ...args: string[]) => {
  try {
    const { stdout, stderr } = await kbCli(dataDir, await freePort(), ['import', ...args])
    return { code: 0, stdout, stderr }
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string }
    return { code: e.code, stdout: e.stdout, stderr: e.stderr }
  }
}

/** The CLI running in the background, its output gathered. */
const started = (env: Record<string, string>, ...args: string[]) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', 'import', ...args], {
    env: { ...process.env, KB_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent', EMBEDDER: 'hashing', ...env },
  })
  const out = { stdout: '', stderr: '' }
  child.stdout.on('data', (d) => (out.stdout += d))
  child.stderr.on('data', (d) => (out.stderr += d))
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)))
  return { child, out, exited }
}

const notes = (root: string, n: number) => {
  fs.mkdirSync(root, { recursive: true })
  for (let i = 0; i < n; i++) fs.writeFileSync(path.join(root, `n${i}.md`), `# Note ${i}\n\nWombat fact ${i}.\n`)
}

/** A data directory holding one workspace, its service stopped. */
const stoppedWorkspace = async (name: string) => {
  const dataDir = path.join(dir, name)
  fs.mkdirSync(dataDir)
  const svc = await startTestService({}, undefined, { dataDir })
  const owner = await seedMember(svc.call, 'owner')
  await svc.stop()
  return { dataDir, owner }
}

/** The entries' titles as the service reads them, once started again on the data directory and its tasks ended. */
const titlesIn = async (dataDir: string, owner: Member) => {
  const svc = await startTestService({}, undefined, { dataDir })
  try {
    // A task a kill cut short resumes with the service, and titles its entry by its heading when it ends.
    const open = async (status: string) =>
      ok(await svc.call('GET', `/api/v1/knowledge/tasks?status=${status}`, { token: owner.token })).total
    await until('no task left running', async () => (await open('pending')) + (await open('processing')) === 0, 60_000)
    const listed = ok(await svc.call('GET', '/api/v1/knowledge?limit=100&includeContent=false', { token: owner.token }))
    return (listed.items as { title: string }[]).map((e) => e.title).sort()
  } finally {
    await svc.stop()
  }
}

test('no service answering: it imports through a service of its own on DATA_DIR; run again, adds nothing', async () => {
  const { dataDir, owner } = await stoppedWorkspace('alone')
  const root = path.join(dir, 'alone-notes')
  notes(root, 6)
  const first = await kbAlone(dataDir, root, '--workspace', owner.workspaceId)
  assert.is(first.code, 0, first.stdout + first.stderr)
  assert.match(first.stderr, /no service answered: importing through a service of its own on DATA_DIR/)
  assert.match(first.stdout, /^imported 6, unchanged 0, failed 0$/m)
  const again = await kbAlone(dataDir, root, '--workspace', owner.workspaceId)
  assert.match(again.stdout, /^imported 0, unchanged 6, failed 0$/m)
  assert.equal(await titlesIn(dataDir, owner), Array.from({ length: 6 }, (_, i) => `Note ${i}`).sort())
  // A data directory that holds no database is a mistake, not an empty knowledge base made on the spot.
  const wrong = await kbAlone(path.join(dir, 'no-such-dir'), root, '--workspace', owner.workspaceId)
  assert.is(wrong.code, 1)
  assert.match(wrong.stderr, /no database in .*no-such-dir.*: is DATA_DIR right\?/)
})

test('killed (SIGKILL) halfway with no service running, then run again: every file once, nothing lost', async () => {
  const { dataDir, owner } = await stoppedWorkspace('killed')
  const root = path.join(dir, 'killed-notes')
  const files = 60
  notes(root, files)
  const run = started({ DATA_DIR: dataDir, PORT: String(await freePort()) }, root, '--workspace', owner.workspaceId)
  // Killed once its progress (a line every 5 s off a terminal) counts some files imported, or when it ended first.
  const shown = () => Math.max(0, ...[...run.out.stderr.matchAll(/: imported (\d+),/g)].map((m) => Number(m[1])))
  for (let i = 0; i < 1200 && shown() < 3 && run.child.exitCode === null; i++)
    await new Promise((r) => setTimeout(r, 100))
  const acknowledged = shown()
  const finished = run.child.exitCode !== null
  run.child.kill('SIGKILL')
  await run.exited
  const again = await kbAlone(dataDir, root, '--workspace', owner.workspaceId)
  assert.is(again.code, 0, again.stdout + again.stderr)
  const [, imported, unchanged] = /^imported (\d+), unchanged (\d+), failed 0$/m.exec(again.stdout) ?? []
  assert.is(Number(imported) + Number(unchanged), files, again.stdout)
  // What the first run had counted imported before the kill is there, and was not imported twice.
  if (!finished) assert.ok(Number(unchanged) >= acknowledged, `${acknowledged} acknowledged; ${again.stdout}`)
  assert.equal(await titlesIn(dataDir, owner), Array.from({ length: files }, (_, i) => `Note ${i}`).sort())
})

test('a search during an import finds every entry the import has put in', async () => {
  const svc: TestService = await startTestService()
  let run: { child: ChildProcess; exited: Promise<number | null> } | undefined
  try {
    const owner = await seedMember(svc.call, 'owner')
    const file = path.join(dir, 'searched.jsonl')
    const lines = Array.from({ length: 80 }, (_, i) =>
      JSON.stringify({ title: `Marsupial ${i}`, content: `Marsupial ${i} is known by the word zq${i}x and no other.` }),
    )
    fs.writeFileSync(file, `${lines.join('\n')}\n`)
    run = started({ KB_URL: svc.url, DATA_DIR: svc.dataDir }, file, '--workspace', owner.workspaceId)
    const call = (method: string, p: string, body?: object) => svc.call(method, p, { token: owner.token, body })
    let checked = 0
    for (let round = 0; round < 200 && run.child.exitCode === null; round++) {
      const listed = ok(await call('GET', '/api/v1/knowledge?limit=100&includeContent=false')).items as {
        title: string
      }[]
      // The newest entry listed, and one from the middle: each is found by its own word.
      for (const e of [listed[0], listed[Math.floor(listed.length / 2)]].filter(Boolean)) {
        const n = e.title.split(' ')[1]
        const found = ok(
          await call('POST', '/api/v1/knowledge/search', { query: `zq${n}x`, mode: 'text', minScore: 0 }),
        )
        assert.equal(
          found.results.map((r: { title: string }) => r.title),
          [e.title],
          `searched while ${listed.length} of 80 were in`,
        )
        checked++
      }
      await new Promise((r) => setTimeout(r, 100))
    }
    assert.is(await run.exited, 0)
    assert.ok(checked >= 2, `searched ${checked} times during the import`)
  } finally {
    run?.child.kill('SIGKILL')
    await svc.stop()
  }
})

test.run()
