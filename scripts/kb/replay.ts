// `kb projections rebuild <name|all> --replay [N] [--max-lost <share>] [--force] [--judgments <file>]`:
// the options read from the command line, and the replay's report as the operator reads it.
import fs from 'node:fs'
import { DEFAULT_MAX_LOST, DEFAULT_REPLAYED, MAX_REPLAYED, type ReplayReport } from '../../commands/search'

export interface ReplayRequest {
  replay: number
  maxLost: number
  force: boolean
  judgments?: Array<{ query: string; judgments: Record<string, number> }>
}

/** The replay the words after `projections rebuild <name>` ask for (none: a plain rebuild), or their mistake. */
export const replayOptions = (words: string[]): { asked?: ReplayRequest; mistake?: string } => {
  const asked: Partial<ReplayRequest> = {}
  for (let i = 0; i < words.length; i++) {
    const [word, next] = [words[i], words[i + 1]]
    if (word === '--replay') {
      const n = next !== undefined && /^\d+$/.test(next) ? Number(words[++i]) : DEFAULT_REPLAYED
      if (n < 1 || n > MAX_REPLAYED) return { mistake: `--replay takes a number of queries from 1 to ${MAX_REPLAYED}` }
      asked.replay = n
    } else if (word === '--max-lost') {
      const m = /^(\d+(?:\.\d+)?)(%?)$/.exec(next ?? '')
      const share = m ? Number(m[1]) / (m[2] ? 100 : 1) : Number.NaN
      if (!(share >= 0 && share <= 1)) return { mistake: '--max-lost takes a share: 0.1 or 10%' }
      asked.maxLost = share
      i++
    } else if (word === '--force') asked.force = true
    else if (word === '--judgments') {
      if (!next) return { mistake: '--judgments takes a file (the evaluation format)' }
      const read = readJudgments(next)
      if (typeof read === 'string') return { mistake: read }
      asked.judgments = read
      i++
    } else return { mistake: `unknown option "${word}"` }
  }
  if (asked.replay === undefined && asked.judgments === undefined) {
    return asked.maxLost !== undefined || asked.force ? { mistake: '--max-lost and --force go with --replay' } : {}
  }
  return {
    asked: {
      replay: asked.replay ?? DEFAULT_REPLAYED,
      maxLost: asked.maxLost ?? DEFAULT_MAX_LOST,
      force: asked.force ?? false,
      ...(asked.judgments ? { judgments: asked.judgments } : {}),
    },
  }
}

/** A question as the evaluation sets write it: a query, and judged ids with grades from 0 to 3. */
const judgedQuestion = (q: unknown) => {
  const { query, judgments } = (q ?? {}) as { query?: unknown; judgments?: unknown }
  if (typeof query !== 'string' || query.length === 0 || typeof judgments !== 'object' || judgments === null)
    return false
  const grades = Array.isArray(judgments) ? [undefined] : Object.values(judgments)
  return grades.every((g) => typeof g === 'number' && g >= 0 && g <= 3)
}

/** A judgments file: an array of questions, each with its query and its judgments (id to grade). */
const readJudgments = (file: string) => {
  let parsed: unknown
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch (error) {
    return `--judgments ${file}: ${(error as Error).message}`
  }
  const questions = Array.isArray(parsed) ? parsed : []
  if (!Array.isArray(parsed) || !questions.every(judgedQuestion))
    return `--judgments ${file}: not an array of { query, judgments: { <id>: grade 0-3 } }`
  return questions.map((q) => ({ query: q.query as string, judgments: q.judgments as Record<string, number> }))
}

const f = (x: number, digits = 3) => x.toFixed(digits)

/** A title in a column of 50 characters. */
const cell = (title = '-') => title.slice(0, 50).padEnd(50)

const figures = (x: ReplayReport['overall']) => {
  const lost = x.queries ? (100 * x.lostFirst) / x.queries : 0
  const { live, shadow } = x.latency
  const judged = x.judged
    ? `; nDCG@10 ${f(x.judged.live)} in service, ${f(x.judged.shadow)} rebuilt (${x.judged.questions} judged)`
    : ''
  if (x.queries === 0) return `no logged query to compare${judged}`
  return (
    `${x.queries} queries: overlap@10 ${f(x.overlap)}, RBO ${f(x.rbo)}, first result lost ${x.lostFirst} ` +
    `(${f(lost, 1)}%), empty now ${x.emptyNow}; p50 ${f(live.p50, 1)} / ${f(shadow.p50, 1)} ms, p95 ` +
    `${f(live.p95, 1)} / ${f(shadow.p95, 1)} ms (in service / rebuilt)${judged}`
  )
}

const VERDICTS = {
  allowed: 'cut over',
  forced: 'cut over, forced',
  refused: 'refused: the tables in service stay (--force cuts over)',
}

/** The replay's report: figures overall and per workspace, the queries that changed most, the verdict. */
export const printReplay = (replay: ReplayReport, write: (line: string) => void) => {
  write(`replayed ${replay.projections.join(', ')} (rebuild ${replay.rebuildId}); ${replay.skipped} skipped`)
  write(`  overall: ${figures(replay.overall)}`)
  for (const w of replay.workspaces) write(`  workspace ${w.workspaceId}: ${figures(w)}`)
  if (replay.changed.length > 0) write('changed most:')
  for (const c of replay.changed) {
    write(`  "${c.query}" (${c.mode}, workspace ${c.workspaceId}): overlap ${f(c.overlap, 2)}, RBO ${f(c.rbo, 2)}`)
    for (let i = 0; i < Math.max(c.live.length, c.shadow.length); i++)
      write(`    ${String(i + 1).padStart(2)}. ${cell(c.live[i]?.title)} | ${c.shadow[i]?.title ?? '-'}`)
  }
  const share = `${f(100 * replay.maxLost, 1)}%`
  write(`verdict: ${VERDICTS[replay.verdict]} (at most ${share} of the queries may lose their first result)`)
}
