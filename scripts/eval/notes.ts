// `tsx scripts/eval/notes.ts`: a newcomer's workspace with the local model (EVAL_EMBEDDER to change it):
// eight one-line notes on marsupials, searched before and after a 1,200-line list of marsupial names
// arrives as one entry, in every mode with minScore 0, and with the defaults untouched. Prints a
// Markdown table of each note's place and score, so that what docs/search.md says can be run again.
import { MARSUPIAL_NOTES as NOTES, nameList } from '../../testkit/marsupials'
import { callerOf, openEvalWorkspace } from './workspace'

const LIST = nameList()
const QUESTIONS: Array<[string, string]> = [
  ['which marsupial has the strongest bite', 'Devils'],
  ['quokkas on Rottnest Island', 'Quokkas'],
  ['island near Perth', 'Quokkas'],
  ['desert marsupials', 'Bilbies'],
]

const set = { name: 'notes', about: 'eight notes and a list', dir: '' }
const { service, token, close } = await openEvalWorkspace(set, [])
const call = callerOf(service.url)
const titleOf = new Map<string, string>()
const add = async (title: string, content: string) =>
  titleOf.set((await call('POST', '/api/v1/knowledge', token, { title, source: 'text', content })).id, title)

type Result = { id: string; score: number }
const cell = async (query: string, want: string, body: object) => {
  const d = await call('POST', '/api/v1/knowledge/search', token, { query, ...body })
  const results = d.results as Result[]
  const at = results.findIndex((r) => titleOf.get(r.id) === want)
  const list = results.find((r) => titleOf.get(r.id) === 'Marsupial names')
  return `${results.length} results; ${want} ${at < 0 ? 'absent' : `#${at + 1} ${results[at].score.toFixed(2)}`}${
    list ? `; the list ${list.score.toFixed(2)}` : ''
  }`
}
const WAYS: Array<[string, object]> = [
  ['text', { mode: 'text', limit: 10, minScore: 0 }],
  ['vector', { mode: 'vector', limit: 10, minScore: 0 }],
  ['hybrid', { mode: 'hybrid', limit: 10, minScore: 0 }],
  ['defaults', {}],
]
try {
  for (const [title, content] of Object.entries(NOTES)) await add(title, content)
  const before = new Map<string, string>()
  for (const [query, want] of QUESTIONS)
    for (const [way, body] of WAYS) before.set(`${query} ${way}`, await cell(query, want, body))
  await add('Marsupial names', LIST)
  process.stdout.write(`| question | search | the notes alone | with the list |\n|---|---|---|---|\n`)
  for (const [query, want] of QUESTIONS)
    for (const [way, body] of WAYS)
      process.stdout.write(
        `| ${query} | ${way} | ${before.get(`${query} ${way}`)} | ${await cell(query, want, body)} |\n`,
      )
} finally {
  await close()
}
process.exit(0)
