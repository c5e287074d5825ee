// Runs the uvu suites under test/ in this process and ends with the line `N passed, N failed[, N skipped]`.
// Suites are queued the way uvu's own runner queues them (`uvu/run`), but this script runs the queue
// itself, so the counts come from the suites' results, not from parsing printed output; when the
// last suite is done the process exits, whatever handles a suite left open.
// A suite whose before-hook fails reports fewer passes than tests; those count as failed, as do a
// test file that fails to load and an error thrown outside any test.
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parse } from 'uvu/parse'

type SuiteRun = () => Promise<[string | true, number, number, number]>
type Queue = Array<Array<string | SuiteRun | null>>
const uvuGlobals = globalThis as typeof globalThis & { UVU_DEFER?: number; UVU_INDEX?: number; UVU_QUEUE?: Queue }

const pattern = process.argv[2] ?? '\\.test\\.ts$'
const out = (text: string) => process.stdout.write(text)

let stray = 0
const outside = (kind: string) => (err: unknown) => {
  stray++
  out(`\n  ✘ ${kind} outside any test: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
}
process.on('uncaughtException', outside('an exception'))
process.on('unhandledRejection', outside('a rejection'))

// Set before uvu is first loaded: its suites then queue themselves instead of running at once.
uvuGlobals.UVU_DEFER = 1
uvuGlobals.UVU_QUEUE = []
const queue = uvuGlobals.UVU_QUEUE
const started = performance.now()
const { suites } = await parse(resolve('test'), pattern)

let total = 0
let passed = 0
let skipped = 0
let failed = 0
for (const [index, file] of suites.entries()) {
  uvuGlobals.UVU_INDEX = index
  queue.push([file.name])
  try {
    await import(pathToFileURL(file.file).href)
  } catch (err) {
    failed++
    out(`\n  ✘ ${file.name} did not load: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`)
  }
}

for (const group of queue) {
  const [name, ...runs] = group
  out(`\n${name}\n`)
  for (const run of runs as SuiteRun[]) {
    const [errors, ran, skips, max] = await run()
    total += max
    passed += ran
    skipped += skips
    failed += max - ran
    if (errors !== true) out(`\n${errors}\n`)
  }
}

// A rejection nobody handled is reported once the current task ends: let it.
await new Promise((done) => setImmediate(done))
failed += stray
const seconds = ((performance.now() - started) / 1000).toFixed(1)
out(`\n  Total: ${total}  Passed: ${passed}  Skipped: ${skipped}  Duration: ${seconds}s\n`)
out(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
process.exit(failed > 0 ? 1 : 0)
