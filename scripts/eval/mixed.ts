// The fourth evaluation set (held out: its questions and judgments were committed before any tuning on
// it, and nothing is tuned on it): a team's workspace of mixed sizes. Six long manuals (each over
// 300 kB, made of whole chapters of a Debian documentation package), a few documents of ordinary
// size, and short notes written by hand (eval/mixed/notes.json) on the same topics. Some documents
// are ingested as PDF files (`format: 'pdf'`, rendered by scripts/eval/pdf.ts when they are uploaded).
import fs from 'node:fs'
import path from 'node:path'
import { htmlToText } from './postgres'
import { rstToText } from './python'
import type { Doc } from './sets'

const PG = '/usr/share/doc/postgresql-doc-15/html'
const PY = '/usr/share/doc/python3.11/html/_sources'
const GIT = '/usr/share/doc/git-doc'
/**
 * This set's own rule instead of the other sets' CAP of 40,000 characters: a document keeps whole
 * pages, in the manual's order, while it stays under this (an entry's text limit is 500,000).
 */
export const MIXED_CAP = 480_000

interface Source {
  id: string
  title: string
  /** Pages in reading order; a pattern takes every matching file of its folder, sorted. */
  pages: Array<string | RegExp>
  dir: string
  format?: 'pdf'
}

const pgAdmin = [
  'runtime-config',
  ...['file-locations', 'connection', 'resource', 'wal', 'replication', 'query', 'logging', 'statistics'].map(
    (p) => `runtime-config-${p}`,
  ),
  ...['autovacuum', 'client', 'locks', 'compatible', 'error-handling', 'preset', 'custom', 'developer', 'short'].map(
    (p) => `runtime-config-${p}`,
  ),
  'routine-vacuuming',
  'routine-reindex',
  'backup',
  'backup-dump',
  'backup-file',
  'continuous-archiving',
  'high-availability',
  'warm-standby',
  'warm-standby-failover',
  'hot-standby',
  'wal',
  'wal-reliability',
  'wal-intro',
  'wal-async-commit',
  'wal-configuration',
  'wal-internals',
].map((p) => `${p}.html`)

const SOURCES: Source[] = [
  {
    id: 'manual/pg-server-admin',
    title: 'PostgreSQL 15 administration: server configuration, vacuuming, backup, replication and WAL',
    dir: PG,
    pages: pgAdmin,
  },
  { id: 'manual/pg-functions', title: 'PostgreSQL 15: functions and operators', dir: PG, pages: [/^functions/] },
  {
    id: 'manual/pg-client-apps',
    title: 'PostgreSQL 15: client and server applications reference',
    dir: PG,
    pages: [/^app-/],
    format: 'pdf',
  },
  {
    id: 'manual/py-concurrency',
    title: 'Python 3.11: asyncio, threads, processes and subprocesses',
    dir: `${PY}/library`,
    pages: [
      'asyncio.rst.txt',
      /^asyncio-/,
      ...['threading', 'multiprocessing', 'multiprocessing.shared_memory', 'concurrent', 'concurrent.futures'].map(
        (p) => `${p}.rst.txt`,
      ),
      ...['subprocess', 'sched', 'queue', 'contextvars', '_thread'].map((p) => `${p}.rst.txt`),
    ],
  },
  {
    id: 'manual/py-devtools',
    title: 'Python 3.11: development tools (typing, pydoc, doctest, unittest, unittest.mock)',
    dir: `${PY}/library`,
    pages: [
      'development.rst.txt',
      'typing.rst.txt',
      'pydoc.rst.txt',
      'devmode.rst.txt',
      'doctest.rst.txt',
      'unittest.rst.txt',
      'unittest.mock.rst.txt',
      'unittest.mock-examples.rst.txt',
      '2to3.rst.txt',
      'test.rst.txt',
    ],
  },
  {
    id: 'manual/git-manual-config',
    title: "Git 2.39: the user's manual and the configuration reference",
    dir: GIT,
    pages: ['user-manual.html', 'git-config.html'],
    format: 'pdf',
  },
  // Documents of ordinary size beside them.
  { id: 'doc/pg-indexes', title: 'PostgreSQL 15: indexes', dir: PG, pages: ['indexes.html', /^indexes-/] },
  { id: 'doc/pg-mvcc', title: 'PostgreSQL 15: concurrency control', dir: PG, pages: ['mvcc.html', /^mvcc-/] },
  {
    id: 'doc/py-pathlib',
    title: 'pathlib: object-oriented filesystem paths',
    dir: `${PY}/library`,
    pages: ['pathlib.rst.txt'],
  },
  {
    id: 'doc/py-logging-cookbook',
    title: 'Python logging cookbook',
    dir: `${PY}/howto`,
    pages: ['logging-cookbook.rst.txt'],
    format: 'pdf',
  },
  {
    id: 'doc/git-attributes',
    title: 'gitattributes: defining attributes per path',
    dir: GIT,
    pages: ['gitattributes.html'],
  },
  {
    id: 'doc/git-workflows',
    title: 'gitworkflows: an overview of recommended workflows with Git',
    dir: GIT,
    pages: ['gitworkflows.html'],
    format: 'pdf',
  },
  { id: 'doc/git-hooks', title: 'githooks: hooks used by Git', dir: GIT, pages: ['githooks.html'], format: 'pdf' },
]

/** A page as plain text: HTML through the PostgreSQL set's reader (Git's footer left out), reST through Python's. */
const pageText = (file: string) => {
  const raw = fs.readFileSync(file, 'utf8')
  if (!file.endsWith('.html')) return rstToText(raw)
  return htmlToText(raw.replace(/<div id="footer">[\s\S]*<\/body>/, '</body>')).text
}

const filesOf = (s: Source) => {
  const all = fs.readdirSync(s.dir).sort()
  const seen = new Set<string>()
  return s.pages
    .flatMap((p) => (typeof p === 'string' ? [p] : all.filter((f) => p.test(f))))
    .filter((f) => !seen.has(f) && seen.add(f))
}

/**
 * What a PDF of the standard fonts can hold (WinAnsi): typographic punctuation as ASCII, anything else
 * outside Latin-1 as '?', tabs as spaces. A PDF document's text is kept this way in docs.jsonl too, so
 * the evidence the build checks is the text the file holds.
 */
export const pdfSafe = (text: string) =>
  text
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\u2026/g, '...')
    .replace(/\u2192/g, '->')
    .replace(/\t/g, '    ')
    .replace(/[^\n\x20-\x7e\xa0-\xff]/g, '?')

const build = (s: Source): Doc => {
  let text = ''
  for (const f of filesOf(s)) {
    const page = pageText(path.join(s.dir, f)).trim()
    if (!page) continue
    const next = text ? `${text}\n\n${page}` : page
    if (next.length > MIXED_CAP) break
    text = next
  }
  if (s.format === 'pdf') text = pdfSafe(text)
  return { id: s.id, title: s.title, text, ...(s.format ? { format: s.format } : {}) }
}

/** The notes, written by hand: one to three sentences each. */
const NOTES = 'eval/mixed/notes.json'

export const mixedDocs = (): Doc[] => [...SOURCES.map(build), ...(JSON.parse(fs.readFileSync(NOTES, 'utf8')) as Doc[])]
