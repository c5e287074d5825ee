// The relevance-evaluation sets: documents generated from a Debian documentation package, and
// hand-written questions with graded judgments checked against the documents' text.
import fs from 'node:fs'

export interface Doc {
  id: string
  title: string
  text: string
  /** Ingested as a file of this format (rendered from `text`) rather than as a text entry. */
  format?: 'pdf'
}

/**
 * `none`: a question the documents do not answer (only irrelevant results), for calibrating scores.
 * `note`: answered by a short note that sits beside a long document on the same topic (the `mixed` set);
 * `deep`: answered only by a passage deep inside a long document (the `mixed` set).
 */
export type Kind = 'keyword' | 'paraphrase' | 'option' | 'note' | 'deep' | 'none'

export interface Question {
  id: string
  kind: Kind
  query: string
  /** Doc id to grade: 2 answers the question, 1 is related and partly useful. */
  judgments: Record<string, number>
  /** A phrase every grade-2 document contains (checked by the build), and the evidence the served chunk should hold. */
  evidence: string
}

export interface EvalSet {
  name: string
  /** What the documents are, for reports. */
  about: string
  dir: string
}

/**
 * `python` is the set ranking is tuned on; `postgres`, `git` and `mixed` are held out from the ranking.
 * Scores are calibrated on `python`, `mixed` and `postgres` (scripts/eval/calibration.ts); `git` is held
 * out from everything. `mixed` is a team's workspace of mixed sizes: long manuals, PDFs and short notes.
 */
export const SETS: EvalSet[] = [
  { name: 'python', about: 'Python 3.11 standard library reference (python3.11-doc)', dir: 'eval/python' },
  { name: 'postgres', about: 'PostgreSQL 15 manual (postgresql-doc-15)', dir: 'eval/postgres' },
  { name: 'git', about: 'Git 2.39 manual pages and guides (git-doc)', dir: 'eval/git' },
  {
    name: 'mixed',
    about: 'long manuals (PostgreSQL 15, Python 3.11, Git 2.39), PDFs and short notes on their topics',
    dir: 'eval/mixed',
  },
]

/** The documents of `python`, `postgres` and `git` are cut to this many characters, at a paragraph end. */
export const CAP = 40_000

export const capped = (text: string) => {
  if (text.length <= CAP) return text
  const cut = Math.max(text.lastIndexOf('\n\n', CAP), text.lastIndexOf('\n', CAP))
  return text.slice(0, cut > CAP / 2 ? cut : CAP).trim()
}

export const loadDocs = (set: EvalSet): Doc[] =>
  fs
    .readFileSync(`${set.dir}/docs.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))

export const loadQuestions = (set: EvalSet): Question[] =>
  JSON.parse(fs.readFileSync(`${set.dir}/questions.json`, 'utf8'))
