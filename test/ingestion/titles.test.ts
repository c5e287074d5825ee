import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type DocNode, cleanTitle, coreTitle, firstHeading, markdownTitle, rawText } from '../../ingestion/titles'

const test = suite('ingestion: the title a document gives itself')

test('Markdown: the first level-1 heading, ATX or underlined, outside code fences and front matter', () => {
  assert.is(markdownTitle('# Numbats\n\nNumbats eat termites.'), 'Numbats')
  assert.is(markdownTitle('Intro line\n\n## Not level one\n\n#  Closed heading  ##\n'), 'Closed heading')
  assert.is(markdownTitle('Setext Title\n============\n\nBody'), 'Setext Title')
  const fenced = '```\n# a comment\n```\n~~~~\n# more\n~~~~\n# After [the link](http://x) `code`'
  assert.is(markdownTitle(fenced), 'After the link code')
  assert.is(markdownTitle('---\ntitle: front\n---\n# Below the front matter'), 'Below the front matter')
  assert.is(markdownTitle('#hashtag is not a heading\n    # indented code\nplain'), undefined)
  assert.is(markdownTitle('#\n\n# Untitled\n\n# Real'), 'Real')
})

test('a title is one line of text; blank and placeholder titles are none', () => {
  assert.is(cleanTitle('  A\n  title\twith   spaces '), 'A title with spaces')
  assert.is(cleanTitle('   '), undefined)
  assert.is(cleanTitle('Untitled'), undefined)
  assert.is(cleanTitle(null), undefined)
})

test("DOCX: the core properties' title, with XML references read", () => {
  const core = (inner: string) =>
    '<cp:coreProperties xmlns:dc="http://purl.org/dc/elements/1.1/">' +
    `${inner}<dc:creator>Me</dc:creator></cp:coreProperties>`
  assert.is(coreTitle(core('<dc:title>Tom &amp; Jerry &#8211; notes &#x1F600;</dc:title>')), 'Tom & Jerry – notes 😀')
  assert.is(coreTitle(core('<dc:title></dc:title>')), undefined)
  assert.is(coreTitle(core('')), undefined)
})

test("DOCX: the first paragraph styled as a title or heading, and the raw text as mammoth's", () => {
  const p = (text: string, styleName: string | null = null, styleId: string | null = null): DocNode => ({
    type: 'paragraph',
    styleName,
    styleId,
    children: [{ type: 'run', children: [{ type: 'text', value: text }] }],
  })
  const doc: DocNode = {
    type: 'document',
    children: [
      p('Intro'),
      { type: 'table', children: [{ type: 'tableRow', children: [{ type: 'tableCell', children: [p('Cell')] }] }] },
      p('Überschrift', null, 'Heading2'),
      p('Later', 'Title'),
    ],
  }
  assert.is(firstHeading(doc), 'Überschrift')
  // Headings and the title are written as Markdown headings: the passages under them know their section.
  assert.is(rawText(doc), 'Intro\n\nCell\n\n## Überschrift\n\n# Later\n\n')
  assert.is(firstHeading({ type: 'document', children: [p('Plain')] }), undefined)
})

test.run()
