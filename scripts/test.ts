// Runs the uvu suites under test/ and ends with the line `N passed, N failed[, N skipped]`.
// A suite whose before-hook fails reports fewer passes than tests; those count as failed.
import { spawn } from 'node:child_process'

const pattern = process.argv[2] ?? '\\.test\\.ts$'
const child = spawn(process.execPath, ['--import', 'tsx', 'node_modules/uvu/bin.js', 'test', pattern, '--no-color'], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
})

let out = ''
let killer: NodeJS.Timeout | undefined
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  out += chunk.toString()
  // uvu prints Duration last; a suite that leaves a handle open must not hang the run.
  if (/Duration:/.test(out) && !killer) killer = setTimeout(() => child.kill('SIGKILL'), 5000)
})

child.on('exit', (code) => {
  if (killer) clearTimeout(killer)
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '')
  const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? NaN)
  const total = num('Total')
  const passed = num('Passed')
  const skipped = num('Skipped')
  if (Number.isNaN(total)) {
    console.log(`\nthe test run ended (code ${code}) before its summary`)
    console.log('0 passed, 1 failed')
    process.exit(1)
  }
  const failed = total - passed
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(failed > 0 || (code !== 0 && code !== null) ? 1 : 0)
})
