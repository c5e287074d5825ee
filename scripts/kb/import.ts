// `kb import <path> --workspace <id> [--folder <name>]`: a folder, an archive or a JSONL file loaded
// into a workspace through the service's admin API (the running one, or one of the import's own on
// DATA_DIR when none answers), a few requests at once. Each entry carries an external reference id
// (its path, or the line's externalId): a second run skips what is there, so a run stopped halfway is
// resumed by running it again.
import fs from 'node:fs'
import { type Answer, Refused, Unreachable, reason, running, serviceClient } from './importClient'
import { type Item, type Source, folderPath } from './importItem'
import { openSource } from './importSources'

/** Requests in flight at once. */
const IN_FLIGHT = 4
/** The longest reference id an entry keeps (a value of externalReferenceIds). */
const MAX_REF = 500

export const IMPORT_USAGE = 'kb import <folder|.zip|.tar|.tar.gz|.jsonl> --workspace <id> [--folder <name>]'

interface Options {
  base: string
  token: () => string
  /**
   * A service of the import's own, where none answered: started once the arguments are checked, and stopped
   * cleanly (what it acknowledged is in the log) before the process exits, whatever the outcome.
   */
  own?: { start: () => Promise<string>; stop: () => Promise<void> }
  /** A usage mistake: one line, exit 2. */
  mistake: (message: string) => never
  /** A failure: one line, exit 1. */
  failure: (message: string) => never
}

const words = (args: string[], mistake: (m: string) => never) => {
  let source: string | undefined
  let workspace: string | undefined
  let folder: string | undefined
  for (let i = 0; i < args.length; i++) {
    const [word, next] = [args[i], args[i + 1]]
    if (word === '--workspace' || word === '--folder') {
      if (!next || next.startsWith('--')) mistake(`kb import: ${word} takes a value\nusage: ${IMPORT_USAGE}`)
      if (word === '--workspace') workspace = next
      else folder = next
      i++
    } else if (word.startsWith('--')) mistake(`kb import: unknown option "${word}"\nusage: ${IMPORT_USAGE}`)
    else if (source) mistake(`kb import: one path at a time (got "${source}" and "${word}")\nusage: ${IMPORT_USAGE}`)
    else source = word
  }
  if (!source || !workspace)
    mistake(`kb import: ${source ? '--workspace <id>' : 'a path'} is required\nusage: ${IMPORT_USAGE}`)
  if (!fs.existsSync(source as string)) mistake(`kb import: no such file or folder: ${source}`)
  return { source: source as string, workspace: workspace as string, folder: folderPath(folder) }
}

const clock = (s: number) => {
  if (!Number.isFinite(s)) return '?'
  const t = Math.round(s)
  const hms = [Math.floor(t / 3600), Math.floor(t / 60) % 60, t % 60]
  return hms[0]
    ? `${hms[0]}:${String(hms[1]).padStart(2, '0')}:${String(hms[2]).padStart(2, '0')}`
    : `${hms[1]}:${String(hms[2]).padStart(2, '0')}`
}

export const importCommand = async (args: string[], o: Options): Promise<never> => {
  const asked = words(args, o.mistake)
  let base = o.base
  if (o.own) {
    process.stderr.write('no service answered: importing through a service of its own on DATA_DIR\n')
    base = await o.own.start().catch((e: Error) => o.failure(`kb import: the service could not start: ${e.message}`))
  } else if (!(await running(base)))
    o.failure(
      `kb import needs the running service, and none answered at ${base}: start it (npm start, with the same ` +
        'DATA_DIR and PORT) or set KB_URL to where it runs, then run this again',
    )
  const ended = async (code: number): Promise<never> => {
    await o.own?.stop()
    process.exit(code)
  }
  const mistake = (message: string) => {
    process.stderr.write(`${message}\n`)
    return ended(2)
  }
  const failure = (message: string) => {
    process.stderr.write(`${message}\n`)
    return ended(1)
  }
  const client = serviceClient(base, o.token(), asked.workspace)
  const first = await client.listFolders().catch((e: Error) => failure(`kb import: ${e.message}`))
  if (!first.success)
    await (first.status === 404 || first.status === 400 ? mistake : failure)(`kb import: ${reason(first as Answer)}`)
  const opened = await openSource(asked.source).catch((e: Error) => failure(`kb import: ${e.message}`))
  if (typeof opened === 'string') await mistake(`kb import: ${opened}`)
  const source = opened as Source

  const counts = { imported: 0, unchanged: 0, failed: 0, processing: 0 }
  const failures: string[] = []
  const fail = (label: string, why: string) => (counts.failed++, failures.push(`${label}: ${why}`))
  let stopping = false
  let fatal: string | undefined

  // Ctrl-C: no new item is started; the requests in flight are answered; then the summary.
  // One Ctrl-C often arrives more than once (from the terminal, and relayed by npm and tsx): repeats
  // within half a second count once.
  let signals = 0
  let last = 0
  const stop = () => {
    if (Date.now() - last < 500) return
    last = Date.now()
    signals++
    if (signals === 1) {
      stopping = true
      process.stderr.write('\nstopping: waiting for the requests in flight (Ctrl-C twice more to quit at once)\n')
    } else if (signals >= 3) process.exit(130)
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)

  /** Waits for an entry's processing (a file's or a URL's task) to end, unless the run is stopping. */
  const settled = async (item: Item) => {
    for (let wait = 200; !stopping; wait = Math.min(wait * 1.5, 2000)) {
      await new Promise((r) => setTimeout(r, wait))
      const found = await client.existing(item.ref!)
      if (found?.processingStatus === 'completed') return counts.imported++
      if (found?.processingStatus === 'failed')
        return fail(item.label, `its processing failed: ${found.failure?.reason ?? 'no reason kept'}`)
    }
    counts.imported++
    counts.processing++
  }

  const one = async (item: Item) => {
    if (item.refused || !item.ref) return fail(item.label, item.refused ?? 'nothing to import')
    if (item.ref.value.length > MAX_REF) return fail(item.label, `its reference id is over ${MAX_REF} characters`)
    const folder = [asked.folder, item.folder].filter(Boolean).join('/') || null
    if (folder && folder.length > 100) return fail(item.label, `its folder "${folder}" is over 100 characters`)
    const found = await client.existing(item.ref)
    if (found?.processingStatus === 'failed')
      return fail(
        item.label,
        `imported before, and its processing failed: ${found.failure?.reason ?? 'no reason kept'} ` +
          '(delete the entry to import it again)',
      )
    if (found) return counts.unchanged++
    const bytes = item.file ? await item.file.read() : undefined
    if (typeof bytes === 'string') return fail(item.label, bytes)
    const folderId = folder ? await client.folderId(folder) : null
    const r = await client.create(item, folderId, bytes)
    if (r.status === 401) throw new Unreachable(reason(r))
    if (!r.success) return fail(item.label, reason(r))
    if (r.data.processingStatus === 'completed') return counts.imported++
    return settled(item)
  }

  const total = source.total
  const started = Date.now()
  const progress = () => {
    const done = counts.imported + counts.unchanged + counts.failed
    const seconds = (Date.now() - started) / 1000
    const rate = seconds > 0 ? done / seconds : 0
    const eta = rate > 0 ? clock((total - done) / rate) : '?'
    return (
      `${done}/${total}: imported ${counts.imported}, unchanged ${counts.unchanged}, failed ${counts.failed}; ` +
      `${rate.toFixed(1)}/s, ETA ${eta}`
    )
  }
  const tty = process.stderr.isTTY
  const show = () => process.stderr.write(tty ? `\r${progress()}\x1b[K` : `${progress()}\n`)
  const ticker = setInterval(show, tty ? 250 : 5000)

  const items = source.items[Symbol.asyncIterator]()
  const worker = async () => {
    while (!stopping) {
      let next: IteratorResult<Item>
      try {
        next = await items.next()
      } catch (error) {
        fatal = `kb import: ${(error as Error).message}`
        stopping = true
        return
      }
      if (next.done) return
      try {
        await one(next.value)
      } catch (error) {
        if (error instanceof Refused) fail(next.value.label, error.message)
        else {
          fail(next.value.label, (error as Error).message)
          if (!(error instanceof Unreachable)) throw error
          fatal ??= `kb import: ${error.message}; run the same command again to import the rest`
          stopping = true
        }
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  clearInterval(ticker)
  show()
  if (tty) process.stderr.write('\n')
  await source.close?.()

  const out = (line: string) => process.stdout.write(`${line}\n`)
  out(`imported ${counts.imported}, unchanged ${counts.unchanged}, failed ${counts.failed}`)
  for (const f of failures) out(`failed ${f}`)
  const left = total - counts.imported - counts.unchanged - counts.failed
  if (counts.processing)
    out(`${counts.processing} imported still being processed by the service (their tasks go on; see the entries)`)
  if (stopping && !fatal && left > 0)
    out(`stopped: ${left} not imported; run the same command again to import the rest`)
  if (fatal) process.stderr.write(`${fatal}\n`)
  return ended(counts.failed > 0 || fatal || (stopping && left > 0) ? 1 : 0)
}
