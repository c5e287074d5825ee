// `npm run eval:build [-- <set>]`: rewrites each set's eval/<set>/docs.jsonl from its Debian
// documentation package, and checks every question's judgments against the documents: each judged
// document exists, and each document judged fully relevant (grade 2) contains the question's evidence.
import fs from 'node:fs'
import { gitDocs } from './git'
import { mixedDocs } from './mixed'
import { postgresDocs } from './postgres'
import { pythonDocs } from './python'
import { type Doc, SETS, loadQuestions } from './sets'

const builders: Record<string, () => Doc[]> = {
  python: pythonDocs,
  postgres: postgresDocs,
  git: gitDocs,
  mixed: mixedDocs,
}

let failed = false
for (const set of SETS.filter((s) => !process.argv[2] || s.name === process.argv[2])) {
  const docs = builders[set.name]()
  fs.mkdirSync(set.dir, { recursive: true })
  fs.writeFileSync(`${set.dir}/docs.jsonl`, docs.map((d) => JSON.stringify(d)).join('\n') + '\n')
  const questions = fs.existsSync(`${set.dir}/questions.json`) ? loadQuestions(set) : []
  const byId = new Map(docs.map((d) => [d.id, d]))
  const problems: string[] = []
  for (const q of questions) {
    for (const [id, grade] of Object.entries(q.judgments)) {
      const doc = byId.get(id)
      if (!doc) problems.push(`${q.id}: no document ${id}`)
      else if (grade === 2 && !doc.text.toLowerCase().includes(q.evidence.toLowerCase()))
        problems.push(`${q.id}: ${id} lacks "${q.evidence}"`)
    }
  }
  const kinds = questions.reduce<Record<string, number>>((n, q) => ((n[q.kind] = (n[q.kind] ?? 0) + 1), n), {})
  const chars = docs.reduce((n, d) => n + d.text.length, 0)
  process.stdout.write(
    `${set.name}: ${docs.length} documents (${(chars / 1e6).toFixed(2)} M characters), ${questions.length} questions ` +
      `${JSON.stringify(kinds)}\n`,
  )
  if (problems.length) {
    process.stderr.write(problems.join('\n') + '\n')
    failed = true
  }
}
process.exit(failed ? 1 : 0)
