import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokens } from '../../adapters/text'
import { chunkSections, chunkText } from '../../ingestion/chunker'

const test = suite('chunker: cl100k tokens, overlap, sentences, positions')

const sentences = Array.from(
  { length: 60 },
  (_, i) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`,
).join(' ')

test('token counts come from cl100k_base', () => {
  assert.is(countTokens('hello world'), 2)
  assert.is(countTokens(''), 0)
})

test('every chunk fits the budget, maps back to its position, and chunks cover the content in order', () => {
  const chunks = chunkText(sentences, { chunkSizeTokens: 100, overlapTokens: 20, preserveSentences: true })
  assert.ok(chunks.length > 5)
  for (const c of chunks) {
    assert.ok(c.tokenCount <= 100, `chunk ${c.index} has ${c.tokenCount} tokens`)
    assert.is(sentences.slice(c.start, c.end), c.text)
    assert.is(c.tokenCount, countTokens(c.text))
  }
  assert.is(chunks[0].start, 0)
  assert.is(chunks[chunks.length - 1].end, sentences.length)
  for (let i = 1; i < chunks.length; i++)
    assert.ok(chunks[i].start > chunks[i - 1].start && chunks[i].start <= chunks[i - 1].end)
})

test('preserveSentences: chunks start and end at sentence boundaries', () => {
  const chunks = chunkText(sentences, { chunkSizeTokens: 100, overlapTokens: 20, preserveSentences: true })
  for (const c of chunks) {
    assert.match(c.text, /^Sentence number \d+/)
    assert.match(c.text, /detail\.$/)
  }
})

test('overlap: consecutive chunks share text of at most overlapTokens; none when 0', () => {
  const withOverlap = chunkText(sentences, { chunkSizeTokens: 100, overlapTokens: 30, preserveSentences: true })
  for (let i = 1; i < withOverlap.length; i++) {
    const shared = withOverlap[i - 1].end - withOverlap[i].start
    assert.ok(shared > 0, 'some overlap')
    assert.ok(countTokens(sentences.slice(withOverlap[i].start, withOverlap[i - 1].end)) <= 31)
  }
  const none = chunkText(sentences, { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true })
  for (let i = 1; i < none.length; i++) assert.ok(none[i].start >= none[i - 1].end)
})

test('without preserveSentences, and for one overlong sentence, chunks break between words, never inside one', () => {
  const long = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ')
  for (const preserveSentences of [true, false]) {
    const chunks = chunkText(long, { chunkSizeTokens: 100, overlapTokens: 10, preserveSentences })
    assert.ok(chunks.length > 5)
    for (const c of chunks) {
      assert.ok(c.tokenCount <= 100)
      assert.match(c.text, /^word\d+( word\d+)*$/)
      assert.ok(c.start === 0 || long[c.start - 1] === ' ')
    }
  }
})

test('empty and whitespace-only content give no chunks; short content gives one', () => {
  assert.equal(chunkText('', { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true }), [])
  assert.equal(chunkText('   \n ', { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true }), [])
  const one = chunkText('  Just this.', { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true })
  assert.equal(
    one.map((c) => [c.text, c.start, c.end]),
    [['Just this.', 2, 12]],
  )
})

test(
  "an entry's token count is estimated from the units the chunking counted: close to an exact count, never " +
    'zero for text',
  () => {
    const prose = [sentences, 'A second section.\nWith a line of its own, and a list:\n- one\n- two\n']
    const chunked = chunkSections(
      prose.map((text) => ({ text })),
      { chunkSizeTokens: 100, overlapTokens: 20, preserveSentences: true },
    )
    const exact = countTokens(chunked.content)
    assert.ok(Math.abs(chunked.tokenCount - exact) / exact < 0.05, `estimated ${chunked.tokenCount}, exact ${exact}`)
    // Chunks' own counts stay exact.
    for (const c of chunked.chunks) assert.is(c.tokenCount, countTokens(c.text))
    assert.is(
      chunkSections([{ text: 'Hello world.' }], { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true })
        .tokenCount,
      3,
    )
    assert.is(
      chunkSections([{ text: '  ' }], { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true }).tokenCount,
      0,
    )
  },
)

test('a word of 500,000 letters is chunked in pieces that fit the budget, surrogate pairs kept whole', () => {
  for (const word of ['x'.repeat(500_000), '\u{1F600}'.repeat(200_000)]) {
    const { chunks, tokenCount } = chunkSections([{ text: `Before. ${word} after.` }], {
      chunkSizeTokens: 1000,
      overlapTokens: 0,
      preserveSentences: true,
    })
    assert.ok(
      chunks.every((c) => c.tokenCount <= 1000),
      String(Math.max(...chunks.map((c) => c.tokenCount))),
    )
    assert.not.ok(
      chunks.some((c) => /[\uD800-\uDFFF]/u.test(c.text)),
      'a chunk holds half of a surrogate pair',
    )
    assert.is(
      chunks
        .map((c) => c.text)
        .join('')
        .replace(/\s/g, ''),
      `Before.${word}after.`,
    )
    assert.ok(tokenCount > 0)
  }
})

test.run()
