import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { highlight } from '../../queries/search/highlight'
import { entryPassages, passagesOf } from '../../ingestion/passages'

const test = suite('highlights and passages')

const content = [
  'The shutil module offers a number of high-level operations on files.',
  'shutil.copyfileobj(fsrc, fdst) copies the contents of the file-like object fsrc to fdst.',
  'Benchmarks of copying are in the table below.',
  'Le café est servi près de la fenêtre; la Straße führt zum Bahnhof 😀 und zurück.',
  'Copying directories recursively is done by copytree, which copies every file it finds.',
].join(' ')

const within = (h: NonNullable<ReturnType<typeof highlight>>) => {
  assert.ok(h.start >= 0 && h.end <= content.length && h.start < h.end)
  assert.is(content.slice(h.start, h.end), h.text)
  for (const t of h.terms)
    assert.ok(t.start >= h.start && t.end <= h.end && t.start < t.end, 'each term inside the highlight')
}

test('the sentence that answers, with the query words marked by offsets in the content', () => {
  const h = highlight(content, 'copy the contents of a file object')!
  within(h)
  assert.match(h.text, /^shutil\.copyfileobj\(fsrc, fdst\) copies the contents/)
  const marked = h.terms.map((t) => content.slice(t.start, t.end).toLowerCase())
  assert.ok(marked.includes('contents') && marked.includes('copies') && marked.includes('object'), marked.join(','))
  assert.not.ok(marked.includes('the'), 'words that say nothing are not marked')
})

test('unicode: accented and German words match as typed, offsets stay on whole characters', () => {
  const h = highlight(content, 'Café Straße')!
  within(h)
  assert.equal(
    h.terms.map((t) => content.slice(t.start, t.end)),
    ['café', 'Straße'],
  )
  // A cut highlight never splits the emoji's surrogate pair.
  const long = `${'😀 filler words here '.repeat(40)}needle in the middle ${'😀 more filler '.repeat(40)}`
  const cut = highlight(long, 'needle')!
  assert.ok(cut.text.length <= 330)
  assert.ok(!/^[\uDC00-\uDFFF]/.test(cut.text) && !/[\uD800-\uDBFF]$/.test(cut.text))
  assert.is(long.slice(cut.terms[0].start, cut.terms[0].end), 'needle')
})

test('no query word in the chunk: the passage found by meaning stands in, or nothing', () => {
  assert.is(highlight(content, 'zebra giraffe'), undefined)
  const at = content.indexOf('Benchmarks')
  const h = highlight(content, 'zebra giraffe', { start: at, end: at + 20 })!
  within(h)
  assert.match(h.text, /^Benchmarks of copying/)
  assert.equal(h.terms, [])
})

test(
  'passages: whole sentences up to the word budget, in order, without overlap; each stands for the chunk ' +
    'it starts in',
  () => {
    const text = Array.from({ length: 30 }, (_, i) => `Sentence ${i} has exactly seven words here.`).join(' ')
    const ps = passagesOf(text, 20)
    for (const p of ps) {
      const words = text.slice(p.start, p.end).trim().split(/\s+/).length
      assert.ok(words <= 20, `${words} words`)
      assert.match(text.slice(p.start, p.end), /^Sentence \d+/)
    }
    for (let i = 1; i < ps.length; i++) assert.ok(ps[i].start >= ps[i - 1].end)
    assert.is(ps[0].start, 0)
    // A sentence longer than the budget is cut between words.
    const sentence = `${'word '.repeat(95)}end.`
    const long = passagesOf(sentence, 40)
    assert.equal(
      long.map((p) => sentence.slice(p.start, p.end).trim().split(/\s+/).length),
      [40, 40, 16],
    )
    const chunks = [
      { start: 0, end: 150 },
      { start: 120, end: 300 },
    ]
    const indexed = entryPassages(text, chunks, 20)
    assert.ok(indexed.every((p) => p.start >= chunks[p.chunkIndex].start))
    assert.ok(indexed.some((p) => p.chunkIndex === 1))
    // A model that reads a whole chunk: one passage per chunk.
    assert.equal(
      entryPassages(text, chunks, undefined).map((p) => [p.start, p.end, p.chunkIndex]),
      [
        [0, 150, 0],
        [120, 300, 1],
      ],
    )
  },
)

test.run()
