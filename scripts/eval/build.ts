// Builds the relevance-evaluation documents from the Debian package python3.11-doc (the
// reStructuredText sources of the standard library reference), and checks every question's
// judgments against them. `npx tsx scripts/eval/build.ts` rewrites eval/docs.jsonl.
import fs from 'node:fs'
import path from 'node:path'

const SOURCE = '/usr/share/doc/python3.11/html/_sources/library'
const CAP = 5000

/** reStructuredText to plain text: roles and markup unwrapped, directives kept as their signatures. */
export const rstToText = (rst: string) => {
  const out: string[] = []
  let skipping = false
  for (const raw of rst.split('\n')) {
    const line = raw.replace(/\s+$/, '')
    if (/^\.\. (index|sectionauthor|moduleauthor|module|currentmodule|highlight|testsetup|testcleanup|toctree|_[^:]+):/.test(line) || /^\.\. _[^:]+:$/.test(line)) {
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
    let l = line
      .replace(/^(\s*)\.\. (function|class|method|attribute|data|exception|decorator|classmethod|staticmethod|opcode|cmdoption|option|envvar|describe|coroutinefunction|coroutinemethod|abstractmethod|pdbcommand)::\s*/, '$1')
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
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
}

/** The first CAP characters, cut at a paragraph end. */
const capped = (text: string) => {
  if (text.length <= CAP) return text
  const cut = text.lastIndexOf('\n\n', CAP)
  return text.slice(0, cut > CAP / 2 ? cut : CAP).trim()
}

export interface Doc {
  id: string
  title: string
  text: string
}

export interface Question {
  id: string
  kind: 'keyword' | 'paraphrase' | 'option'
  query: string
  /** Doc id to grade: 2 answers the question, 1 is related and partly useful. */
  judgments: Record<string, number>
  /** A phrase the grade-2 documents contain, checked by this script. */
  evidence: string
}

const build = () => {
  const docs: Doc[] = fs
    .readdirSync(SOURCE)
    .filter((f) => f.endsWith('.rst.txt'))
    .sort()
    .map((f) => {
      const text = capped(rstToText(fs.readFileSync(path.join(SOURCE, f), 'utf8')))
      const title = text.split('\n').find((l) => l.trim())?.trim() ?? f
      return { id: `library/${f.replace(/\.rst\.txt$/, '')}`, title, text }
    })
    .filter((d) => d.text.length > 200)
  fs.writeFileSync('eval/docs.jsonl', docs.map((d) => JSON.stringify(d)).join('\n') + '\n')
  const questions: Question[] = JSON.parse(fs.readFileSync('eval/questions.json', 'utf8'))
  const byId = new Map(docs.map((d) => [d.id, d]))
  const problems: string[] = []
  for (const q of questions) {
    for (const [id, grade] of Object.entries(q.judgments)) {
      const doc = byId.get(id)
      if (!doc) problems.push(`${q.id}: no document ${id}`)
      else if (grade === 2 && !doc.text.toLowerCase().includes(q.evidence.toLowerCase())) problems.push(`${q.id}: ${id} lacks "${q.evidence}"`)
    }
  }
  const kinds = questions.reduce<Record<string, number>>((n, q) => ((n[q.kind] = (n[q.kind] ?? 0) + 1), n), {})
  process.stdout.write(`${docs.length} documents, ${questions.length} questions ${JSON.stringify(kinds)}\n`)
  if (problems.length) {
    process.stderr.write(problems.join('\n') + '\n')
    process.exit(1)
  }
}

if (process.argv[1]?.endsWith('build.ts')) build()
