import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ndcgAt, overlapAt, percentile, rankBiasedOverlap } from '../../queries/search/agreement'

const test = suite('agreement of two rankings: overlap@10, rank-biased overlap, nDCG@10')

const ten = Array.from({ length: 10 }, (_, i) => `e${i}`)
const close = (actual: number, expected: number, message?: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${message ?? ''} ${actual} is not ${expected}`)

test('overlap@10: the share of the longer top 10 both hold; two empty answers agree', () => {
  assert.is(overlapAt(ten, [...ten].reverse()), 1)
  assert.is(
    overlapAt(
      ten,
      ten.map((id) => `${id}'`),
    ),
    0,
  )
  assert.is(overlapAt(ten, ten.slice(0, 5)), 0.5)
  assert.is(overlapAt([], []), 1)
  assert.is(overlapAt(ten, []), 0)
  assert.is(overlapAt([...ten, 'x'], ['x', ...ten.slice(1)]), 0.9, 'only the top 10 count')
})

test('rank-biased overlap: 1 for the same list, 0 for lists that share nothing, and the top weighs most', () => {
  close(rankBiasedOverlap(ten, ten), 1)
  close(rankBiasedOverlap(ten.slice(0, 3), ten.slice(0, 3)), 1, 'short lists')
  close(rankBiasedOverlap([], []), 1)
  close(
    rankBiasedOverlap(
      ten,
      ten.map((id) => `${id}'`),
    ),
    0,
  )
  const topSwapped = [ten[1], ten[0], ...ten.slice(2)]
  const bottomSwapped = [...ten.slice(0, 8), ten[9], ten[8]]
  const [top, bottom] = [rankBiasedOverlap(ten, topSwapped), rankBiasedOverlap(ten, bottomSwapped)]
  assert.ok(top < bottom && bottom < 1, `top swapped ${top}, bottom swapped ${bottom}`)
  close(rankBiasedOverlap(ten, topSwapped), rankBiasedOverlap(topSwapped, ten), 'symmetric')
  assert.ok(rankBiasedOverlap(ten, ten.slice(0, 5)) < 1, 'a list that lost its last five')
})

test('nDCG@10: 1 for the ideal order, less for a worse one, 0 with nothing relevant found', () => {
  const judgments = { e0: 2, e1: 1 }
  close(ndcgAt(ten, judgments), 1)
  const worse = ndcgAt(['e1', 'e0'], judgments)
  assert.ok(worse > 0 && worse < 1, `${worse}`)
  assert.is(ndcgAt(['x', 'y'], judgments), 0)
  assert.is(ndcgAt(ten, {}), 0)
  assert.is(percentile([5, 1, 3, 2, 4], 50), 3)
  assert.is(percentile([], 95), 0)
})

test.run()
