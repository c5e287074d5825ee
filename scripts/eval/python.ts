// The first evaluation set (the one ranking is tuned on): the Python standard library reference,
// from the reStructuredText sources in the Debian package python3.11-doc.
import fs from 'node:fs'
import path from 'node:path'
import { type Doc, capped } from './sets'

const SOURCE = '/usr/share/doc/python3.11/html/_sources/library'

/** Directives whose block is markup, not text. */
const SKIPPED =
  /^\.\. (index|sectionauthor|moduleauthor|module|currentmodule|highlight|testsetup|testcleanup|toctree|_[^:]+):/
const DESCRIBED = [
  'function',
  'class',
  'method',
  'attribute',
  'data',
  'exception',
  'decorator',
  'classmethod',
  'staticmethod',
  'opcode',
  'cmdoption',
  'option',
  'envvar',
  'describe',
  'coroutinefunction',
  'coroutinemethod',
  'abstractmethod',
  'pdbcommand',
]
/** A directive that describes an object: its signature is kept as text. */
const DESCRIPTION = new RegExp(`^(\\s*)\\.\\. (${DESCRIBED.join('|')})::\\s*`)

/** reStructuredText to plain text: roles and markup unwrapped, directives kept as their signatures. */
export const rstToText = (rst: string) => {
  const out: string[] = []
  let skipping = false
  for (const raw of rst.split('\n')) {
    const line = raw.replace(/\s+$/, '')
    if (SKIPPED.test(line) || /^\.\. _[^:]+:$/.test(line)) {
      skipping = true
      continue
    }
    if (skipping && (line === '' || /^\s/.test(line))) {
      if (line === '') skipping = false
      continue
    }
    skipping = false
    if (/^([=\-~^"*+#])\1{3,}$/.test(line.trim())) continue
    if (/^\*\*Source code:\*\*/.test(line)) continue
    const l = line
      .replace(DESCRIPTION, '$1')
      .replace(/^(\s*)\.\. versionadded:: (\S+)/, '$1New in version $2.')
      .replace(/^(\s*)\.\. versionchanged:: (\S+)/, '$1Changed in version $2:')
      .replace(/^(\s*)\.\. deprecated:: (\S+)/, '$1Deprecated since version $2:')
      .replace(/^(\s*)\.\. (note|warning|seealso|tip|important|caution|impl-detail|availability)::\s*/, '$1')
      .replace(/^(\s*)\.\. [\w-]+::.*$/, '')
      .replace(/^(\s*):synopsis:\s*/, '$1')
      .replace(/:[\w:.-]+:`~?!?([^`<]*?)\s*(?:<[^>]*>)?`/g, '$1')
      .replace(/``([^`]*)``/g, '$1')
      .replace(/`([^`<]*?)\s*(?:<[^>]*>)?`_{0,2}/g, '$1')
      .replace(/\*\*([^*]+)\*\*/g, '$1')
      .replace(/\*([^*\s][^*]*)\*/g, '$1')
      .replace(/ --- /g, ' — ')
    out.push(l)
  }
  return out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

export const pythonDocs = (): Doc[] =>
  fs
    .readdirSync(SOURCE)
    .filter((f) => f.endsWith('.rst.txt'))
    .sort()
    .map((f) => {
      const text = capped(rstToText(fs.readFileSync(path.join(SOURCE, f), 'utf8')))
      const title =
        text
          .split('\n')
          .find((l) => l.trim())
          ?.trim() ?? f
      return { id: `library/${f.replace(/\.rst\.txt$/, '')}`, title, text }
    })
    .filter((d) => d.text.length > 200)
