import * as E from 'fp-ts/Either'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readRange } from '../../api/tools/ranges'

const doc = `# Guide\nIntro.\n\n## Install\n${'a'.repeat(250)}\n\n## Usage\nRun it.\n### Flags\n-v\n\n## FAQ\nNone.`

const read = (a: Parameters<typeof readRange>[1]) => {
  const r = readRange(doc, a)
  if (E.isLeft(r)) throw new Error(r.left)
  return r.right
}

test('a section runs to the next heading of its level or above, subsections included', () => {
  assert.is(read({ section: 'usage' }).content, '## Usage\nRun it.\n### Flags\n-v\n\n')
  assert.equal(read({ section: 'Usage' }).sections, ['Guide', 'Install', 'Usage', 'Flags', 'FAQ'])
})

test('reading on from next, in a section, neither skips nor repeats text', () => {
  const first = read({ section: 'install', maxChars: 100 })
  assert.is(first.next, 100)
  const second = read({ section: 'install', offset: first.next, maxChars: 100 })
  const third = read({ section: 'install', offset: second.next, maxChars: 100 })
  assert.is(third.next, undefined)
  const whole = read({ section: 'install', maxChars: 100_000 }).content
  assert.is(first.content + second.content + third.content, whole)
  assert.is(second.range.start, doc.indexOf('## Install') + 100)
})

test('the whole text, an offset past the end, an unknown heading, an emoji at the cut', () => {
  const all = read({})
  assert.equal([all.content, all.next, all.sections], [doc, undefined, undefined])
  assert.equal(read({ offset: 10_000 }).range, { start: doc.length, end: doc.length, total: doc.length })
  const unknown = readRange(doc, { section: 'Nowhere' })
  assert.ok(E.isLeft(unknown) && /the headings are: Guide, Install, Usage, Flags, FAQ/.test(unknown.left))
  const emoji = readRange(`${'x'.repeat(99)}😀tail`, { maxChars: 100 })
  assert.ok(E.isRight(emoji) && emoji.right.content === 'x'.repeat(99) && emoji.right.next === 99)
})

test.run()
