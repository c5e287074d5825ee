// The service as a child process (npm start's entry point, or npm start itself), for crash and shutdown tests.
import { type ChildProcess, execFile, spawn } from 'node:child_process'
import net from 'node:net'
import { promisify } from 'node:util'
import { ADMIN } from './service'

export interface Proc {
  child: ChildProcess
  base: string
  exited: Promise<number | null>
  output: () => string
}

// A test that fails before it stops its service must not leave it running (holding its port and DATA_DIR).
const running = new Set<() => void>()
process.on('exit', () => {
  for (const kill of running) {
    try {
      kill()
    } catch {}
  }
})

/**
 * A port no socket holds now, chosen by the system. A port drawn at random from a range collided
 * with the local end of the suite's own connections (the range lies in the ephemeral ports).
 */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/**
 * The service as a process on `port` and `dataDir`: `node --import tsx app/main.ts`, or with `npm`
 * the README's `npm start`, in a process group of its own (a group signal reaches npm and node).
 */
export const start = async (
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
  { npm = false } = {},
): Promise<Proc> => {
  const [command, args] = npm ? ['npm', ['start']] : [process.execPath, ['--import', 'tsx', 'app/main.ts']]
  const child = spawn(command, args, {
    detached: npm,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      KB_ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'warn',
      EMBEDDER: 'hashing',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const kill = () => (npm ? process.kill(-child.pid!, 'SIGKILL') : child.kill('SIGKILL'))
  running.add(kill)
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => (running.delete(kill), resolve(code))),
  )
  const base = `http://127.0.0.1:${port}`
  await whenHealthy(child, base, () => out, kill)
  return { child, base, exited, output: () => out }
}

/**
 * Waits for a started service to answer /health: up to a minute, since seven processes starting
 * at once on a loaded machine compile and open the database slowly. If it exits or never answers,
 * `kill` and throw with what it printed.
 */
const whenHealthy = async (child: ChildProcess, base: string, output: () => string, kill: () => void) => {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return
    } catch {}
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 100))
  }
  kill()
  throw new Error(`service did not start: ${output()}`)
}

/**
 * A create sent through Node's fetch with its body held back after the first `head` bytes, so
 * that the service has received the request while its body is still coming: `finish` sends the
 * rest. The answer is the response, or the transport's failure.
 */
export const heldCreate = (base: string, token: string, body: object, head: number) => {
  const bytes = new TextEncoder().encode(JSON.stringify(body))
  let push!: ReadableStreamDefaultController<Uint8Array>
  const stream = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) })
  const answer = fetch(`${base}/api/v1/knowledge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit)
  push.enqueue(bytes.subarray(0, head))
  return {
    answer,
    finish: () => {
      push.enqueue(bytes.subarray(head))
      push.close()
    },
  }
}

/** The kb CLI on a DATA_DIR (through the service on `port` when one answers there); rejects when it exits non-zero. */
export const kbCli = (dataDir: string, port: number, args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', ...args], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      KB_ADMIN_TOKEN: ADMIN,
      LOG_LEVEL: 'silent',
      EMBEDDER: 'hashing',
      ...env,
    },
  })
