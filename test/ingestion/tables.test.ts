import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { chunkSections } from '../../ingestion/chunker'
import { entryPassages } from '../../ingestion/passages'
import { withOutline, withTables } from '../../ingestion/pdf'
import { type PlacedText, alignedTables } from '../../ingestion/pdfTables'
import { markdownTable, tableHeaderAt, tablesOf } from '../../ingestion/tables'

const test = suite('ingestion: tables kept as tables, a row never read without its header')

const ROWS = [
  ['Region', 'Q1 sales', 'Manager'],
  ...Array.from({ length: 30 }, (_, i) => [`Region ${i}`, `${100 + i}.5`, `Person ${i}`]),
]
const TABLE = markdownTable(ROWS)
const DOC = ['# Report', 'Sales by region, as agreed.', '', TABLE, '', 'Questions go to finance.'].join('\n')

test('a Markdown table: header, delimiter, rows as wide as the widest; pipes escaped; a layout table is none', () => {
  assert.is(
    markdownTable([['a', 'b|c'], ['1'], ['', ''], ['2', 'x\n y']]),
    '| a | b\\|c |\n| --- | --- |\n| 1 |   |\n| 2 | x y |',
  )
  assert.is(markdownTable([['only one row', 'here']]), '')
  assert.is(markdownTable([['one column'], ['two rows']]), '')
})

test('tables are found with their header and body, outside fenced code; a row elsewhere is not a table', () => {
  const found = tablesOf(DOC)
  assert.is(found.length, 1)
  assert.is(DOC.slice(found[0].start, found[0].body), `${found[0].header}\n`)
  assert.is(found[0].header, '| Region | Q1 sales | Manager |\n| --- | --- | --- |')
  assert.ok(DOC.slice(found[0].end).startsWith('\n\nQuestions'))
  assert.equal(tablesOf(['```', TABLE, '```'].join('\n')), [])
  assert.equal(tablesOf('| just | a line |\nand text'), [])
})

test('the header a piece is read with: only for a piece that starts among the rows', () => {
  const at = tableHeaderAt(DOC)
  const [t] = tablesOf(DOC)
  assert.is(at(0), '')
  assert.is(at(t.start), '')
  assert.is(at(DOC.indexOf('| Region 7 |')), t.header)
  assert.is(at(DOC.indexOf('Questions')), '')
})

test('chunks: a long table is cut between rows, never between a header and its first row', () => {
  const { chunks } = chunkSections([{ text: DOC }], { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true })
  assert.ok(chunks.length >= 3, `${chunks.length} chunks`)
  for (const c of chunks) {
    // Every chunk starts at a line's start and ends at a line's end (no row cut in "100.5").
    assert.ok(c.start === 0 || DOC[c.start - 1] === '\n', JSON.stringify(c.text.slice(0, 30)))
    assert.ok(c.end === DOC.length || DOC[c.end] === '\n', JSON.stringify(c.text.slice(-30)))
    assert.not.ok(c.text.trimEnd().endsWith('| --- | --- | --- |'), 'a header left without its rows')
  }
  assert.ok(chunks.some((c) => c.text.startsWith('| Region ') && !c.text.startsWith('| Region |')))
})

test('passages: those starting among the rows are read with the header; rows are not cut inside', () => {
  const passages = entryPassages(DOC, [{ start: 0, end: DOC.length }], 20)
  const [t] = tablesOf(DOC)
  const among = passages.filter((p) => p.start >= t.body && p.start < t.end)
  assert.ok(among.length >= 3)
  for (const p of among) {
    assert.ok(p.text.startsWith(`${t.header}\n| Region `), p.text.slice(0, 80))
    assert.ok(DOC[p.start - 1] === '\n')
  }
  // Without a table, a passage is its own words.
  const plain = entryPassages('One sentence. Another one.', [{ start: 0, end: 26 }], 20)
  assert.is(plain[0].text, 'One sentence. Another one.')
})

test('a PDF page: its ruled table in place of the lines that held its rows, else after the text', () => {
  const rows = [
    ['Name', 'Age'],
    ['Ann', '31'],
    ['Bo', '7'],
  ]
  assert.is(
    withTables('Intro\nName Age\nAnn 31\nBo 7\nOutro', [rows]),
    'Intro\n| Name | Age |\n| --- | --- |\n| Ann | 31 |\n| Bo | 7 |\nOutro',
  )
  // A cell wrapped over two lines: the table is not found as lines, and comes after the page's text.
  assert.is(
    withTables('Intro\nName Age\nAnn 3\n1\nBo 7', [rows]),
    'Intro\nName Age\nAnn 3\n1\nBo 7\n| Name | Age |\n| --- | --- |\n| Ann | 31 |\n| Bo | 7 |',
  )
})

/** Text items of a page, each line a row of cells set at these x positions, 14 points apart, 10-point type. */
const placed = (rows: string[][], columns: number[], top = 700): PlacedText[] =>
  rows.flatMap((row, r) =>
    row.map((str, c) => ({ str, x: columns[c], y: top - r * 14, width: str.length * 5, size: 10 })),
  )

test('a PDF page: lines whose cells stand in the same columns are a table; prose, lists and a layout are not', () => {
  const rows = [
    ['Region', 'Q1 revenue', 'Manager'],
    ['Aldgate', '410.25', 'Ann Lee'],
    ['Bexley', '9.5', 'Bo Chan'],
  ]
  // Items given in any order, a cell in two items, a number set right of its column's left edge.
  const items = placed(rows, [40, 200, 360]).reverse()
  items.push({ str: 'Tower', x: 40 + 7 * 5 + 2.5, y: 686, width: 25, size: 10 }, { ...items[0], str: ' ', x: 300 })
  items.find((i) => i.str === '9.5')!.x = 230
  assert.equal(alignedTables(items), [[rows[0], ['Aldgate Tower', '410.25', 'Ann Lee'], rows[2]]])
  // A row that leaves a cell empty: its cells stand in the columns they overlap.
  const gappy = placed(rows, [40, 200, 360]).filter((i) => i.str !== '410.25')
  assert.equal(alignedTables(gappy), [[rows[0], ['Aldgate', '', 'Ann Lee'], rows[2]]])
  // Two rows are not enough; nor are lines whose columns move, a page of two columns of prose, a list set with
  // tab stops, or lines with one cell.
  assert.equal(alignedTables(placed(rows.slice(0, 2), [40, 200, 360])), [])
  assert.equal(
    alignedTables([...placed(rows.slice(0, 2), [40, 200, 360]), ...placed([rows[2]], [40, 400, 500], 672)]),
    [],
  )
  const prose = 'the words of a paragraph set in a column of its own'
  assert.equal(
    alignedTables(
      placed(
        [
          [prose, prose],
          [prose, prose],
          [prose, prose],
        ],
        [40, 320],
      ),
    ),
    [],
  )
  assert.equal(
    alignedTables(
      placed(
        [
          ['1.', 'Install'],
          ['2.', 'Run'],
          ['3.', 'Stop'],
        ],
        [40, 70],
      ),
    ),
    [],
  )
  assert.equal(alignedTables(placed([['One line'], ['Another'], ['A third']], [40])), [])
})

test("a PDF page: a table of aligned columns takes its rows' place, left out where its rows are not lines", () => {
  const rows = [
    ['Name', 'Age'],
    ['Ann', '31'],
    ['Bo', '7'],
  ]
  assert.is(
    withTables('Intro\nName Age\nAnn 31\nBo 7', [], [rows]),
    'Intro\n| Name | Age |\n| --- | --- |\n| Ann | 31 |\n| Bo | 7 |',
  )
  assert.is(withTables('Intro\nName\nAge\nAnn 31\nBo 7', [], [rows]), 'Intro\nName\nAge\nAnn 31\nBo 7')
})

test("a PDF's outline: each entry's line a heading of its depth, found in order; one not found is left out", () => {
  const text = 'Guide\n1 Installation\nSteps.\n1.1  Linux\nApt.\nNot in outline\n2 Care'
  const outline = [
    { title: 'Guide', level: 1 },
    { title: '1 Installation', level: 2 },
    { title: '1.1 Linux', level: 3 },
    { title: 'Missing', level: 2 },
    { title: '2 Care', level: 2 },
  ]
  assert.is(
    withOutline(text, outline),
    '# Guide\n## 1 Installation\nSteps.\n### 1.1 Linux\nApt.\nNot in outline\n## 2 Care',
  )
})

test.run()
