// The third evaluation set (held out: its questions were committed before any ranking was tuned,
// and nothing is tuned on it): Git's documentation, from the HTML of the Debian package git-doc.
// Mostly manual pages of commands, each a synopsis and a long list of options, with the guides
// (tutorials, workflows, FAQ, glossary, user manual), the howtos and the technical notes beside them.
import fs from 'node:fs'
import path from 'node:path'
import { JSDOM } from 'jsdom'
import { htmlToText } from './postgres'
import { type Doc, capped } from './sets'

const SOURCE = '/usr/share/doc/git-doc'
const DIRS = ['', 'howto', 'technical']
/** Pages that only list other pages, or repeat one (index.html is git.html). */
const SKIPPED = new Set(['index', 'howto-index', 'technical/api-index'])
/** A page shorter than this is an alias's stub or a pointer to another page, not a document. */
const MIN_CHARS = 1000

/** A manual page's title is its NAME line ("git-add - Add file contents to the index"), a guide's its first heading. */
const titleOf = (html: string) => {
  const doc = new JSDOM(html).window.document
  const header = doc.querySelector('#header')
  const name = header?.querySelector('h2 + .sectionbody')?.textContent
  const heading = doc.querySelector('h1, h2')?.textContent || doc.querySelector('title')?.textContent
  return (name || heading || '').replace(/\s+/g, ' ').trim()
}

export const gitDocs = (): Doc[] =>
  DIRS.flatMap((dir) =>
    fs
      .readdirSync(path.join(SOURCE, dir))
      .filter((f) => f.endsWith('.html'))
      .map((f) => path.posix.join(dir, f)),
  )
    .sort()
    .filter((f) => !SKIPPED.has(f.replace(/\.html$/, '')))
    .map((f) => {
      // The footer only says when the page was generated.
      const html = fs.readFileSync(path.join(SOURCE, f), 'utf8').replace(/<div id="footer">[\s\S]*<\/body>/, '</body>')
      const { text } = htmlToText(html)
      return { id: f.replace(/\.html$/, ''), title: titleOf(html) || f, text: capped(text) }
    })
    .filter((d) => d.text.length >= MIN_CHARS)
