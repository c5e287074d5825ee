// The service as a child process (npm start's entry point), for crash and shutdown tests.
import { type ChildProcess, spawn } from 'node:child_process'
import { ADMIN } from './service'

export interface Proc {
  child: ChildProcess
  base: string
  exited: Promise<number | null>
  output: () => string
}

// A test that fails before it stops its service must not leave it running (holding its port and DATA_DIR).
const running = new Set<ChildProcess>()
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

export const start = async (dataDir: string, port: number, env: Record<string, string> = {}): Promise<Proc> => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'app/main.ts'], {
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
  running.add(child)
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => (running.delete(child), resolve(code))),
  )
  const base = `http://127.0.0.1:${port}`
  // Up to a minute: seven processes starting at once on a loaded machine compile and open the database slowly.
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return { child, base, exited, output: () => out }
    } catch {}
    if (child.exitCode !== null) break
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`service did not start: ${out}`)
}
