// `tsx scripts/eval/variants.ts <evidence.json>...`: nDCG@10 of ways to fuse the legs, per question kind and
// set, from what scripts/eval/evidence.ts wrote (no service runs). Each variant is a ranking of the
// documents of a question from the text leg's evidence and the passages' and chunks' similarities.
import { MODEL, mean, ndcgAt } from '../../queries/search'
import { type Data, type Variant, hybrid, load, text, vector } from './fusion'
import { atLeastVector, rm3Hybrid, rm3Text } from './rm3'

const KINDS = ['all', 'keyword', 'paraphrase', 'option']
const score = (d: Data, v: Variant) =>
  KINDS.map((kind) =>
    mean(d.questions.filter((q) => kind === 'all' || q.kind === kind).map((q) => ndcgAt(v.rank(d, q), q.judgments))),
  )

/** Adaptive: the vector leg's weight grows as the text leg's best evidence falls under `below`. */
const adaptive = (base: number, gain: number, below: number) => (text: number[]) =>
  base + gain * Math.max(0, below - (text[0] ?? 0))

const fixed: Variant[] = [
  text,
  vector(false),
  vector(true),
  vector(false, 0.5),
  vector(true, 0.5),
  vector(true, 1),
  hybrid({ name: 'hybrid (now)', weight: () => MODEL.hybridVector }),
  ...[0.25, 0.5, 1].flatMap((l) => [rm3Text(l), rm3Hybrid(l)]),
  ...[0, 0.3, 0.5].map(atLeastVector),
  hybrid({ name: 'hybrid now + prose', weight: () => MODEL.hybridVector, prose: true }),
  hybrid({ name: 'hybrid now + chunk 0.5', weight: () => MODEL.hybridVector, chunkWeight: 0.5 }),
  ...[0.3, 0.5, 0.7].flatMap((bar) =>
    [3, 5, 10].map((at) =>
      hybrid({ name: `hybrid now + slot p≥${bar}@${at}`, weight: () => MODEL.hybridVector, slot: { bar, at } }),
    ),
  ),
  hybrid({ name: 'hybrid adaptive 0.1+0.5·(1.5-t1)', weight: adaptive(0.1, 0.5, 1.5) }),
  hybrid({ name: 'hybrid adaptive 0.1+1·(1.5-t1)', weight: adaptive(0.1, 1, 1.5) }),
  hybrid({ name: 'hybrid adaptive 0.1+2·(1-t1)', weight: adaptive(0.1, 2, 1) }),
]
/**
 * Chosen on python alone before any held-out figure was seen: python's best adaptive weight, a place
 * for the vector leg's first find at even odds (python cannot tell the places apart: no question there
 * has its first vector find right with nothing right in the text leg's top 10), and python's best of
 * the whole grid among those that keep its keyword figure (with the same place).
 */
const SLOT = { bar: 0.5, at: 3 }
const chosen: Variant[] = [
  hybrid({ name: 'chosen: adaptive 0.1+0.5·(1.5-t1)', weight: adaptive(0.1, 0.5, 1.5) }),
  hybrid({ name: 'chosen: slot p≥0.5@3', weight: () => MODEL.hybridVector, slot: SLOT }),
  hybrid({ name: 'chosen: adaptive + slot', weight: adaptive(0.1, 0.5, 1.5), slot: SLOT }),
  hybrid({ name: 'chosen: adaptive + slot + prose', weight: adaptive(0.1, 0.5, 1.5), slot: SLOT, prose: true }),
  hybrid({
    name: 'chosen: grid best 0.2+0.5·(1.5-t1) chunk 0.5 + slot',
    weight: adaptive(0.2, 0.5, 1.5),
    chunkWeight: 0.5,
    slot: SLOT,
  }),
]
const grid: Variant[] = []
for (const prose of [false, true])
  for (const chunkWeight of [0, 0.5])
    for (const [base, gain, below] of [
      [0.1, 0, 0],
      [0.2, 0, 0],
      [0.3, 0, 0],
      ...[0.1, 0.2].flatMap((b) => [0.25, 0.5, 1, 2].flatMap((g) => [1, 1.5, 2].map((t) => [b, g, t]))),
    ])
      for (const slot of [undefined, ...[0.3, 0.5, 0.7].flatMap((bar) => [3, 5, 10].map((at) => ({ bar, at })))])
        grid.push(
          hybrid({
            name:
              `hybrid w ${base}${gain ? `+${gain}·(${below}-t1)` : ''}${prose ? ' prose' : ''}` +
              `${chunkWeight ? ` chunk ${chunkWeight}` : ''}${slot ? ` slot ${slot.bar}@${slot.at}` : ''}`,
            weight: adaptive(base, gain, below),
            prose,
            chunkWeight,
            slot,
          }),
        )

const sets = process.argv.slice(2).map((f) => load(f))
const table = (d: Data, vs: Variant[]) => {
  process.stdout.write(`| variant | ${KINDS.join(' | ')} |\n|---|${KINDS.map(() => '---:').join('|')}|\n`)
  for (const v of vs)
    process.stdout.write(
      `| ${v.name} | ${score(d, v)
        .map((x) => x.toFixed(3))
        .join(' | ')} |\n`,
    )
}
// Chosen on the tuning set alone: the best overall, among those that lose nothing on keyword questions.
const tuning = sets.find((d) => d.set === 'python')
const now = tuning && score(tuning, fixed.find((v) => v.name === 'hybrid (now)')!)
const best = tuning
  ? grid
      .map((v) => ({ v, s: score(tuning, v) }))
      .filter((x) => x.s[1] >= now![1] - 1e-9)
      .sort((a, b) => b.s[0] - a.s[0])
      .slice(0, Number(process.env.VARIANTS_SHOWN ?? 12))
      .map((x) => x.v)
  : []
/** Questions whose text top 10 holds nothing relevant while the vector leg's first find is relevant. */
const rescued = (d: Data) =>
  d.questions
    .filter((q) => {
      const t = text.rank(d, q).slice(0, 10)
      const v = vector(false).rank(d, q)[0]
      return !t.some((doc) => (q.judgments[doc] ?? 0) > 0) && (q.judgments[v] ?? 0) > 0
    })
    .map((q) => `${q.kind} ${q.id}`)
for (const d of sets) {
  process.stdout.write(`\n${d.set}: vector first right where text top 10 holds nothing: ${rescued(d).join(', ')}\n`)
  const prose = d.passages.filter((p) => p.prose).length
  process.stdout.write(
    `\n## ${d.set}: ${d.questions.length} questions, ${d.passages.length} passages (${prose} prose)\n\n`,
  )
  table(d, [...fixed, ...chosen, ...best])
}
