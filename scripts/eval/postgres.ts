// The second evaluation set (held out: its questions were committed before any ranking was tuned,
// and nothing is tuned on it): the PostgreSQL 15 manual, from the HTML of the Debian package
// postgresql-doc-15. Reference pages of SQL commands and client programs, configuration,
// functions, data types and the chapters around them.
import fs from 'node:fs'
import path from 'node:path'
import { JSDOM } from 'jsdom'
import { type Doc, capped } from './sets'

const SOURCE = '/usr/share/doc/postgresql-doc-15/html'
const PREFIXES = [
  'sql',
  'app',
  'functions',
  'runtime',
  'datatype',
  'ddl',
  'plpgsql',
  'indexes',
  'textsearch',
  'queries',
  'auth',
  'libpq',
  'datetime',
  'typeconv',
  'wal',
  'backup',
  'mvcc',
  'monitoring',
  'routine',
  'trigger',
  'rules',
  'dml',
  'planner',
  'parallel',
  'logical',
  'role',
  'manage',
  'server',
  'explicit',
]
/** A page shorter than this once its table of contents is gone is a chapter's index, not a document. */
const MIN_CHARS = 1500

const BLOCKS = new Set([
  'P',
  'DIV',
  'PRE',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'LI',
  'DT',
  'DD',
  'TR',
  'TABLE',
  'BLOCKQUOTE',
  'BR',
])
/** Blocks that end a paragraph (a blank line after them); rows, list items and code lines do not. */
const PARAGRAPHS = new Set(['P', 'PRE', 'H1', 'H2', 'H3', 'H4', 'H5', 'TABLE', 'DD', 'BLOCKQUOTE'])

/** The page's article as plain text: one line per block, table cells joined by " | ", code kept as written. */
export const htmlToText = (html: string) => {
  const doc = new JSDOM(html).window.document
  doc.querySelectorAll('.navheader, .navfooter, .toc, .indexterm, script, style').forEach((e) => e.remove())
  const out: string[] = []
  let line = ''
  const flush = () => {
    if (line.trim()) out.push(line.replace(/[ \t]+/g, ' ').trim())
    line = ''
  }
  const walk = (node: Node, pre: boolean) => {
    if (node.nodeType === 3) {
      const text = node.textContent ?? ''
      if (!pre) line += text.replace(/\s+/g, ' ')
      else {
        const lines = text.split('\n')
        lines.forEach((l, i) => {
          if (i > 0) flush()
          line += l
        })
      }
      return
    }
    if (node.nodeType !== 1) return
    const el = node as Element
    const block = BLOCKS.has(el.tagName)
    if (block) flush()
    el.childNodes.forEach((child, i) => {
      if (el.tagName === 'TR' && i > 0) line += ' | '
      walk(child, pre || el.tagName === 'PRE')
    })
    if (block) flush()
    if (PARAGRAPHS.has(el.tagName) && out[out.length - 1] !== '') out.push('')
  }
  walk(doc.body, false)
  const title = (doc.querySelector('title')?.textContent ?? '').replace(/^[\d.A-Z]+\.\s+/, '').trim()
  return { title, text: out.join('\n').trim() }
}

export const postgresDocs = (): Doc[] =>
  fs
    .readdirSync(SOURCE)
    .filter((f) => f.endsWith('.html') && PREFIXES.includes(f.split(/[-.]/)[0]))
    .sort()
    .map((f) => {
      const { title, text } = htmlToText(fs.readFileSync(path.join(SOURCE, f), 'utf8'))
      return { id: f.replace(/\.html$/, ''), title: title || f, text: capped(text) }
    })
    .filter((d) => d.text.length >= MIN_CHARS)
