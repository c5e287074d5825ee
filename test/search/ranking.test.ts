import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MIN_AVG_LEN, bm25, coverage, idf } from '../../adapters/textIndex/bm25'
import type { QueryTerms } from '../../adapters/textIndex/terms'
import { MODEL, type TextEvidence, type VectorEvidence, calibrate, fuse } from '../../queries/search/rankingModel'

const test = suite('ranking: BM25, fusion of the legs, calibration')

const terms: QueryTerms = {
  lexemes: ['rare', 'common'],
  counts: [1, 1],
  fields: { chunk: { docs: 100, avgLen: 50, df: [2, 90] } },
}

test('BM25 is 0 without a query lexeme, grows with term frequency, stays under 1, and weighs rare lexemes more', () => {
  assert.is(bm25(terms, 'chunk', [0, 0], 50), 0)
  const once = bm25(terms, 'chunk', [1, 0], 50)
  const often = bm25(terms, 'chunk', [10, 0], 50)
  assert.ok(once > 0 && often > once && often < 1)
  assert.ok(bm25(terms, 'chunk', [1, 0], 50) > bm25(terms, 'chunk', [0, 1], 50), 'the rare lexeme counts more')
  assert.ok(
    bm25(terms, 'chunk', [1, 0], 20) > bm25(terms, 'chunk', [1, 0], 200),
    'a shorter row scores the same matches higher',
  )
  assert.ok(idf(100, 2) > idf(100, 90) && idf(100, 100) > 0)
  // The maximum for the query is each lexeme's weight times k1 + 1: a row far richer than any gets close to it.
  assert.ok(bm25(terms, 'chunk', [1000, 1000], 1) > 0.99)
  assert.is(bm25({ ...terms, lexemes: [], counts: [] }, 'chunk', [], 10), 0)
  assert.is(bm25(terms, 'title', [1, 1], 10), 0, 'no statistics for the field: no score')
})

test('BM25 judges a short row short even where every row is short', () => {
  const notes: QueryTerms = { ...terms, fields: { chunk: { docs: 100, avgLen: 12, df: [2, 90] } } }
  const manuals: QueryTerms = { ...terms, fields: { chunk: { docs: 100, avgLen: 600, df: [2, 90] } } }
  assert.ok(MIN_AVG_LEN > 12)
  const inNotes = bm25(notes, 'chunk', [1, 1], 12)
  const amongManuals = bm25(manuals, 'chunk', [1, 1], 12)
  assert.ok(Math.abs(inNotes - amongManuals) < 0.05, `${inNotes} among notes, ${amongManuals} among manuals`)
  assert.is(bm25(notes, 'chunk', [1, 1], 12, 0) < inNotes, true, 'without the floor, a note is average among notes')
})

test('coverage: the share of the question a row holds, rare words weighing more, unknown words nothing', () => {
  assert.is(coverage(terms, 'chunk', [true, true]), 1)
  assert.is(coverage(terms, 'chunk', [false, false]), 0)
  assert.ok(coverage(terms, 'chunk', [true, false]) > coverage(terms, 'chunk', [false, true]))
  const unknown: QueryTerms = {
    lexemes: ['known', 'nowhere'],
    counts: [1, 1],
    fields: { chunk: { docs: 10, avgLen: 50, df: [3, 0] } },
  }
  assert.is(coverage(unknown, 'chunk', [true, false]), 1)
  assert.is(coverage(terms, 'title', [true, true]), 0, 'no statistics for the field')
})

const t = (chunk: number, body = chunk, title = 0, coverage = 1): TextEvidence => ({ chunk, body, title, coverage })
const v = (best: number, top3 = best): VectorEvidence => ({ best, top3 })

test('calibration: inside [0, 1], increasing with the raw score, whatever else the search found', () => {
  for (const c of Object.values(MODEL.calibration)) {
    let last = -1
    for (let raw = 0; raw <= 3; raw += 0.05) {
      const p = calibrate(raw, c)
      assert.ok(p >= 0 && p <= 1)
      assert.ok(p >= last, 'never decreasing (it saturates at 1)')
      last = p
    }
    assert.ok(calibrate(0.6, c) > calibrate(0.5, c), 'increasing where it is not saturated')
  }
  // A result's score is its own: the same evidence scores the same beside a stronger or a weaker result.
  const note = t(0.45, 0.45, 0, 0.5)
  const alone = fuse(new Map([['note', note]]), new Map(), 'text', 'score')[0].score
  const beside = fuse(
    new Map([
      ['note', note],
      ['list', t(0.9, 0.9, 0.5, 1)],
    ]),
    new Map(),
    'text',
    'score',
  )
  assert.is(beside.find((h) => h.key === 'note')!.score, alone)
})

test('a result holding the whole question scores at least even odds, in text and hybrid, in its place', () => {
  const whole = t(0.3, 0.3, 0, 1)
  const weakerWhole = t(0.2, 0.2, 0, 1)
  const part = t(0.6, 0.6, 0, 0.6)
  for (const mode of ['text', 'hybrid'] as const) {
    const hits = fuse(
      new Map([
        ['weaker', weakerWhole],
        ['whole', whole],
        ['part', part],
      ]),
      new Map(),
      mode,
      'score',
    )
    assert.equal(
      hits.map((h) => h.key),
      ['part', 'whole', 'weaker'],
      'in the order of their chances',
    )
    assert.ok(hits[0].score < MODEL.wholeQuestion, 'part of the question: its chance')
    assert.is(hits[1].score, MODEL.wholeQuestion)
    assert.is(hits[2].score, MODEL.wholeQuestion)
    assert.equal(
      hits.map((h) => h.ranks.text),
      [1, 2, 3],
    )
  }
  // Strong evidence keeps its own chance above the floor; vector mode has no floor.
  const strong = fuse(new Map([['s', t(1, 1, 1, 1)]]), new Map(), 'text', 'score')[0]
  assert.ok(strong.score > MODEL.wholeQuestion)
  assert.ok(fuse(new Map(), new Map([['v', v(0.3)]]), 'vector', 'score')[0].score < MODEL.wholeQuestion)
})

test('hybrid: a confident leg decides and a silent leg pushes nothing down', () => {
  // Text is sure of a; vector has nothing on a and weak, flat similarities for b and c.
  const text = new Map([
    ['a', t(0.9, 0.8, 0.5)],
    ['b', t(0.1)],
  ])
  const vector = new Map([
    ['b', v(0.31)],
    ['c', v(0.3)],
  ])
  const hybrid = fuse(text, vector, 'hybrid', 'score')
  assert.is(hybrid[0].key, 'a')
  assert.equal(
    hybrid.map((h) => h.key),
    ['a', 'b', 'c'],
  )
  assert.ok(
    hybrid[0].score >= fuse(text, new Map(), 'text', 'score')[0].score - 0.05,
    'the silent leg barely moves the confident one',
  )
  // Each result explains itself: each leg's calibrated score and rank, and the fused score served.
  assert.equal(Object.keys(hybrid[0].scores).sort(), ['fused', 'text', 'vector'])
  assert.equal(hybrid[0].ranks, { text: 1 })
  assert.equal(hybrid[2].ranks, { vector: 2 })
  assert.is(hybrid[0].score, hybrid[0].scores.fused)
})

test('hybrid with one leg empty is that leg; a mode only has its own leg', () => {
  const text = new Map([
    ['a', t(0.5)],
    ['b', t(0.3)],
  ])
  assert.equal(
    fuse(text, new Map(), 'hybrid', 'score').map((h) => h.key),
    ['a', 'b'],
  )
  assert.equal(
    fuse(
      new Map(),
      new Map([
        ['x', v(0.6)],
        ['y', v(0.7)],
      ]),
      'hybrid',
      'score',
    ).map((h) => h.key),
    ['y', 'x'],
  )
  const textOnly = fuse(text, new Map([['z', v(0.9)]]), 'text', 'score')
  assert.equal(
    textOnly.map((h) => h.key),
    ['a', 'b'],
  )
  assert.equal(Object.keys(textOnly[0].scores).sort(), ['fused', 'text'])
  const vectorOnly = fuse(text, new Map([['z', v(0.9)]]), 'vector', 'score')
  assert.equal(
    vectorOnly.map((h) => h.key),
    ['z'],
  )
  assert.equal(fuse(new Map(), new Map(), 'hybrid', 'score'), [])
})

test('ties keep a stable order; rrf orders by rank and still serves the calibrated score', () => {
  const same = fuse(
    new Map([
      ['b', t(0.4)],
      ['a', t(0.4)],
      ['c', t(0.4)],
    ]),
    new Map(),
    'text',
    'score',
  )
  assert.equal(
    same.map((h) => h.key),
    ['a', 'b', 'c'],
  )
  assert.is(same[0].score, same[2].score)
  // By score, the text leg's strong match wins; by RRF, the key both legs rank well wins.
  const text = new Map([
    ['a', t(0.95, 0.95, 0.9)],
    ['b', t(0.3)],
  ])
  const vector = new Map([
    ['b', v(0.5)],
    ['c', v(0.45)],
  ])
  assert.is(fuse(text, vector, 'hybrid', 'score')[0].key, 'a')
  const rrf = fuse(text, vector, 'hybrid', 'rrf')
  assert.is(rrf[0].key, 'b')
  const byKey = new Map(fuse(text, vector, 'hybrid', 'score').map((h) => [h.key, h.score]))
  for (const h of rrf) assert.is(h.score, byKey.get(h.key))
})

test.run()
