import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { headingPathAt, headingsOf, subjectOf } from '../../ingestion/headings'

const test = suite('ingestion: the section a passage stands in, from the headings above it')

const GUIDE = [
  '# Field guide',
  'About the guide.',
  '## Installation',
  'Before installing.',
  '### Linux',
  'Run the package manager.',
  '```',
  '# not a heading: a comment in code',
  '```',
  '### Windows `setup`',
  'Run the setup program.',
  '## Care',
  'Feed them termites.',
  '#### Deep, under Care',
  'Rarely read.',
].join('\n')

test('headings: ATX levels with their text (inline markup read), outside fenced code', () => {
  assert.equal(
    headingsOf(GUIDE).map((h) => [h.level, h.text]),
    [
      [1, 'Field guide'],
      [2, 'Installation'],
      [3, 'Linux'],
      [3, 'Windows setup'],
      [2, 'Care'],
      [4, 'Deep, under Care'],
    ],
  )
})

test('the path at an offset: each heading under the nearest one of a higher level; none before the first', () => {
  const at = headingPathAt(GUIDE)
  const where = (s: string) => GUIDE.indexOf(s)
  assert.is(headingPathAt('Intro.\n\n# Later')(0), '')
  assert.is(at(where('About the guide')), 'Field guide')
  assert.is(at(where('## Installation')), 'Field guide › Installation', 'a passage starting at a heading is under it')
  assert.is(at(where('Run the package')), 'Field guide › Installation › Linux')
  assert.is(at(where('# not a heading')), 'Field guide › Installation › Linux')
  assert.is(at(where('Run the setup')), 'Field guide › Installation › Windows setup')
  assert.is(at(where('Feed them')), 'Field guide › Care')
  assert.is(at(where('Rarely')), 'Field guide › Care › Deep, under Care')
  assert.is(at(GUIDE.length), 'Field guide › Care › Deep, under Care')
})

test("a passage's subject: its title and its path, without headings that only say the title again", () => {
  assert.is(subjectOf('Field guide', 'Field guide › Installation › Linux'), 'Field guide › Installation › Linux')
  assert.is(subjectOf('Numbats', 'Numbats'), 'Numbats')
  assert.is(subjectOf('Numbats', ''), 'Numbats')
  assert.is(subjectOf('Wombat notes', 'Burrows › Depth'), 'Wombat notes › Burrows › Depth')
})

test.run()
