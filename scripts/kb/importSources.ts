// What `kb import` reads: a folder (walked), a .zip, a .tar(.gz), or one file; each file becomes an
// item with its relative path. Archives are bounded (entries, total size) before anything is sent.
import fs from 'node:fs'
import path from 'node:path'
import { Parser, type ReadEntry } from 'tar'
import yauzl from 'yauzl'
import { MAX_FILE_SIZE } from '../../domain/knowledge'
import type { Item, Source } from './importItem'
import { jsonlSource } from './importJsonl'

/** At most this many files in an archive, and this many bytes once unpacked. */
export const MAX_ARCHIVE_ENTRIES = 100_000
export const MAX_ARCHIVE_BYTES = 2 * 1024 ** 3

const TOO_LARGE = `over ${MAX_FILE_SIZE} bytes, more than any workspace accepts (maxFileSize)`

/** Hidden files and folders (.git, .DS_Store) and macOS archive debris are not knowledge. */
const skipped = (rel: string) => rel.split('/').some((part) => part.startsWith('.') || part === '__MACOSX')

/** A file at a relative path (`a/b/c.md`): its folder is its directories (`a/b`), none at the top. */
const fileItem = (rel: string, read: () => Promise<Buffer | string>): Item => {
  const dir = path.posix.dirname(rel)
  return { label: rel, ref: { key: 'path', value: rel }, folder: dir === '.' ? null : dir, file: { read } }
}

/** Buffer, or why it cannot be read. */
const readOrWhy = async (file: string) => {
  try {
    const stat = await fs.promises.stat(file)
    if (stat.size > MAX_FILE_SIZE) return TOO_LARGE
    return await fs.promises.readFile(file)
  } catch (error) {
    return `cannot be read: ${(error as Error).message}`
  }
}

const walk = (root: string, rel = '', out: string[] = [], problems: Item[] = []) => {
  let names: fs.Dirent[]
  try {
    names = fs.readdirSync(path.join(root, rel), { withFileTypes: true })
  } catch (error) {
    problems.push({ label: rel || '.', refused: `cannot be read: ${(error as Error).message}` })
    return { out, problems }
  }
  for (const d of names.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const r = rel ? `${rel}/${d.name}` : d.name
    if (skipped(r)) continue
    if (d.isDirectory()) walk(root, r, out, problems)
    else if (d.isFile()) out.push(r)
    else if (d.isSymbolicLink()) {
      // A link to a file is read (a broken one says why it cannot be); links to folders are not walked (no cycles).
      const target = fs.statSync(path.join(root, r), { throwIfNoEntry: false })
      if (target?.isDirectory()) problems.push({ label: r, refused: 'a link to a folder: not walked' })
      else out.push(r)
    } else problems.push({ label: r, refused: 'not a regular file (a socket, a device, a pipe): left out' })
  }
  return { out, problems }
}

const folderSource = (root: string): Source => {
  const { out, problems } = walk(root)
  return {
    total: out.length + problems.length,
    items: (async function* () {
      yield* problems
      for (const rel of out) yield fileItem(rel, () => readOrWhy(path.join(root, rel)))
    })(),
  }
}

/** A path inside an archive, made relative and clean; undefined when it leaves the archive. */
const archivePath = (name: string) => {
  const clean = path.posix.normalize(name.replace(/\\/g, '/')).replace(/^\/+/, '')
  return clean === '..' || clean.startsWith('../') ? undefined : clean
}

/** Checks an archive's declared entries against the bounds; the error says which was passed. */
const bound = (archive: string, count: number, bytes: number) => {
  if (count > MAX_ARCHIVE_ENTRIES)
    throw new Error(`${archive} holds more than ${MAX_ARCHIVE_ENTRIES} files: split it, or import it unpacked`)
  if (bytes > MAX_ARCHIVE_BYTES)
    throw new Error(`${archive} unpacks to more than ${MAX_ARCHIVE_BYTES} bytes: split it, or import it unpacked`)
}

const openZip = (file: string) =>
  new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (error, zip) => (error ? reject(error) : resolve(zip))),
  )

const zipSource = async (file: string): Promise<Source> => {
  const zip = await openZip(file)
  bound(file, zip.entryCount, 0)
  const entries = await new Promise<yauzl.Entry[]>((resolve, reject) => {
    const all: yauzl.Entry[] = []
    zip.on('entry', (e: yauzl.Entry) => (all.push(e), zip.readEntry()))
    zip.on('end', () => resolve(all))
    zip.on('error', reject)
    zip.readEntry()
  })
  const files = entries.filter((e) => !e.fileName.endsWith('/') && !skipped(archivePath(e.fileName) ?? ''))
  bound(
    file,
    files.length,
    files.reduce((sum, e) => sum + e.uncompressedSize, 0),
  )
  const read = (e: yauzl.Entry) => async () => {
    if (e.uncompressedSize > MAX_FILE_SIZE) return TOO_LARGE
    if (e.isEncrypted()) return 'is encrypted'
    try {
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(e, (error, s) => (error ? reject(error) : resolve(s))),
      )
      const chunks: Buffer[] = []
      for await (const chunk of stream) chunks.push(chunk as Buffer)
      return Buffer.concat(chunks)
    } catch (error) {
      return `cannot be read from the archive: ${(error as Error).message}`
    }
  }
  return {
    total: files.length,
    close: async () => zip.close(),
    items: (async function* () {
      for (const e of files) {
        const rel = archivePath(e.fileName)
        yield rel ? fileItem(rel, read(e)) : { label: e.fileName, refused: 'its path leaves the archive' }
      }
    })(),
  }
}

/** Feeds a tar (gzipped or not) through the parser, handing each file entry to `onFile` with its bytes (or why not). */
const readTar = async (file: string, onFile: (name: string, bytes: Buffer | string) => Promise<void>) => {
  const parser = new Parser({ strict: true })
  const done: Promise<unknown>[] = []
  let failed: Error | undefined
  parser.on('error', (error: Error) => (failed ??= error))
  parser.on('entry', (entry: ReadEntry) => {
    if (entry.type !== 'File' && entry.type !== 'OldFile') return void entry.resume()
    if (entry.size > MAX_FILE_SIZE) {
      entry.resume()
      return void done.push(onFile(entry.path, TOO_LARGE))
    }
    const chunks: Buffer[] = []
    entry.on('data', (c: Buffer) => chunks.push(c))
    done.push(
      new Promise<void>((resolve) => entry.on('end', resolve)).then(() => onFile(entry.path, Buffer.concat(chunks))),
    )
  })
  const ended = new Promise((resolve) => parser.on('end', resolve))
  for await (const chunk of fs.createReadStream(file)) {
    parser.write(chunk as Buffer)
    // Each file is handed on before more is read: what waits in memory stays small.
    await Promise.all(done.splice(0))
    if (failed) throw new Error(`${file} is not a readable tar archive: ${failed.message}`)
  }
  parser.end()
  await ended
  await Promise.all(done.splice(0))
  if (failed) throw new Error(`${file} is not a readable tar archive: ${failed.message}`)
}

const tarSource = async (file: string): Promise<Source> => {
  // A first pass counts the files (the progress's total) and checks the bounds before anything is sent.
  let count = 0
  let bytes = 0
  await readTar(file, async (name, b) => {
    if (skipped(archivePath(name) ?? '')) return
    count++
    bytes += typeof b === 'string' ? MAX_FILE_SIZE : b.length
    bound(file, count, bytes)
  })
  const queue: Item[] = []
  let wake = () => {}
  let end: { error?: Error } | undefined
  let taken = () => {}
  const reading = readTar(file, async (name, b) => {
    const rel = archivePath(name)
    if (rel && skipped(rel)) return
    queue.push(rel ? fileItem(rel, async () => b) : { label: name, refused: 'its path leaves the archive' })
    wake()
    // At most a few files wait for the workers.
    while (queue.length > 4) await new Promise<void>((r) => (taken = r))
  }).then(
    () => (end = {}),
    (error: Error) => (end = { error }),
  )
  return {
    total: count,
    items: (async function* () {
      for (;;) {
        const item = queue.shift()
        taken()
        if (item) yield item
        else if (end) {
          if (end.error) throw end.error
          return
        } else await Promise.race([new Promise<void>((r) => (wake = r)), reading])
      }
    })(),
  }
}

/** The source a path names, or the mistake in naming it. */
export const openSource = async (p: string): Promise<Source | string> => {
  const stat = fs.statSync(p, { throwIfNoEntry: false })
  if (!stat) return `no such file or folder: ${p}`
  if (stat.isDirectory()) return folderSource(p)
  const lower = p.toLowerCase()
  if (lower.endsWith('.zip')) return zipSource(p)
  if (/\.(tar|tar\.gz|tgz)$/.test(lower)) return tarSource(p)
  if (lower.endsWith('.jsonl')) return jsonlSource(p)
  const name = path.basename(p)
  return {
    total: 1,
    items: (async function* () {
      yield fileItem(name, () => readOrWhy(p))
    })(),
  }
}
