import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { type ICruiseResult, type IForbiddenRuleType, cruise } from 'dependency-cruiser'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { capabilities } from '../app/capabilities'

/**
 * The layering, bottom to top: each folder may import the ones below it, never one above.
 * domain (deciders) and adapters (ports to the outside) at the bottom; ingestion (parsers and their
 * threads, chunking, the crawler); projections (read models, the tables they own); queries (typed reads
 * of them); commands (the write side, and search); workers (background loops); api (HTTP); app
 * (configuration and wiring); scripts (CLI, benches, eval). testkit (fixtures) serves tests and
 * benches only. Inside six of them, a folder per capability.
 */
const LAYERS = [
  'domain',
  'adapters',
  'ingestion',
  'projections',
  'queries',
  'commands',
  'workers',
  'api',
  'app',
  'scripts',
]

/**
 * Inside these layers, one folder per capability; the same capability has the same name in each. The
 * capabilities are the service's list (app/capabilities): a new one is held to these rules by being there.
 */
const CAPABILITY_LAYERS = 'domain|commands|projections|queries|workers|api'
const CAPABILITIES = capabilities.map((c) => c.name).join('|')

const rules: IForbiddenRuleType[] = [
  ...LAYERS.slice(0, -1).map((layer, i) => ({
    name: `${layer}-imports-upward`,
    severity: 'error' as const,
    from: { path: `^${layer}/` },
    to: { path: `^(${LAYERS.slice(i + 1).join('|')})/` },
  })),
  // domain and adapters are both at the bottom: neither imports the other's side of the house.
  { name: 'domain-imports-adapters', severity: 'error', from: { path: '^domain/' }, to: { path: '^adapters/' } },
  // The read side reads the tables projectors write, never their code: what both need of a table's
  // shape (an index's name) sits below both, in adapters.
  { name: 'queries-import-projections', severity: 'error', from: { path: '^queries/' }, to: { path: '^projections/' } },
  // Background work changes state through commands: no worker folds a decider (or reads its types) itself.
  { name: 'workers-import-domain', severity: 'error', from: { path: '^workers/' }, to: { path: '^domain/' } },
  { name: 'code-imports-tests', severity: 'error', from: { pathNot: '^(test|testkit)/' }, to: { path: '^test/' } },
  {
    name: 'fixtures-in-service',
    severity: 'error',
    from: { path: `^(${LAYERS.slice(0, -1).join('|')})/` },
    to: { path: '^testkit/' },
  },
  { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
  // The request path every route shares knows no capability: what a capability's routes need beyond
  // the common input (an upload, its settings) they declare themselves (a route's `extras`).
  {
    name: 'request-path-knows-a-capability',
    severity: 'error',
    from: { path: '^api/(route|body|validation|answers|errors)\\.ts$' },
    to: { path: `^(${CAPABILITY_LAYERS})/(${CAPABILITIES})/` },
  },
  // A capability reaches into its own folders of every layer; another capability, and what every
  // capability shares, reach it only through the folder's index.ts.
  {
    name: 'capability-reached-past-its-index',
    severity: 'error',
    from: { path: `^(${CAPABILITY_LAYERS})/(${CAPABILITIES})/` },
    to: { path: `^(${CAPABILITY_LAYERS})/(${CAPABILITIES})/[^/]+$`, pathNot: [`^[^/]+/$2/`, '/index\\.ts$'] },
  },
  {
    name: 'shared-code-reaches-past-an-index',
    severity: 'error',
    from: { pathNot: `^(test|testkit)/|^(${CAPABILITY_LAYERS})/(${CAPABILITIES})/` },
    to: { path: `^(${CAPABILITY_LAYERS})/(${CAPABILITIES})/[^/]+$`, pathNot: '/index\\.ts$' },
  },
]

const check = async (baseDir: string, folders: string[], uses = new Map(capabilities.map((c) => [c.name, c.uses]))) => {
  const result = await cruise(
    folders,
    {
      baseDir,
      validate: true,
      ruleSet: { forbidden: rules },
      tsPreCompilationDeps: true,
      doNotFollow: { path: 'node_modules' },
      exclude: { path: 'node_modules' },
    },
    { extensions: ['.ts', '.mts', '.mjs', '.js', '.d.ts'] },
  )
  const output = result.output as ICruiseResult
  return [
    ...output.summary.violations.map(
      (v) => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((c) => c.name).join(' -> ')})` : ''}`,
    ),
    ...capabilitiesBothWays(output),
    ...undeclaredUses(output, uses),
  ]
}

/** The first import of each pair of capabilities (from one capability's folder to another's), by the pair. */
const importsBetween = (output: ICruiseResult) => {
  const capability = new RegExp(`^(?:${CAPABILITY_LAYERS})/(${CAPABILITIES})/`)
  const first = new Map<string, string>()
  for (const m of output.modules) {
    const from = capability.exec(m.source)?.[1]
    for (const d of m.dependencies) {
      const to = capability.exec(d.resolved)?.[1]
      const pair = `${from} -> ${to}`
      if (from && to && from !== to && !first.has(pair)) first.set(pair, `${m.source} -> ${d.resolved}`)
    }
  }
  return first
}

/** A capability imports only the capabilities its module says it uses (`uses`), each named with one import. */
const undeclaredUses = (output: ICruiseResult, uses: Map<string, string[]>) =>
  [...importsBetween(output)]
    .filter(([pair]) => {
      const [from, to] = pair.split(' -> ')
      return !uses.get(from)?.includes(to)
    })
    .map(([pair, example]) => `capability-uses-undeclared: ${pair} (${example})`)

/**
 * Capabilities are peers that lean one way: whichever layers the imports run in, no two capabilities
 * import each other. Each pair found both ways is named with one import of each direction.
 */
const capabilitiesBothWays = (output: ICruiseResult) => {
  const first = importsBetween(output)
  return [...first.keys()]
    .map((pair) => pair.split(' -> '))
    .filter(([a, b]) => a < b && first.has(`${b} -> ${a}`))
    .map(
      ([a, b]) => `capabilities-both-ways: ${a} <-> ${b} (${first.get(`${a} -> ${b}`)}; ${first.get(`${b} -> ${a}`)})`,
    )
}

const test = suite('the house: no import runs upward, no circle, no line past 120 characters')

test('the repository keeps its layers', async () => {
  const folders = [...LAYERS, 'testkit'].filter((f) => fs.existsSync(f))
  assert.equal(await check(process.cwd(), folders), [])
})

test('the check finds an upward import, a circle, a reach past an index, code read, peers both ways', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-layers-'))
  try {
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
      fs.writeFileSync(path.join(dir, file), text)
    }
    write('domain/rule.ts', "import { route } from '../api/route'\nexport const rule = route\n")
    write('api/route.ts', "import { page } from '../domain/knowledge'\nexport const route = page\n")
    write('commands/a.ts', "import { b } from './b'\nexport const a = () => b\n")
    write('commands/b.ts', "import { a } from './a'\nexport const b = () => a\n")
    write('commands/pages/write.ts', "import { entry } from '../knowledge/entry'\nexport const write = entry\n")
    write('commands/pages/index.ts', "export * from './write'\n")
    write(
      'commands/knowledge/entry.ts',
      "import { page } from '../../domain/knowledge/page'\nexport const entry = page\n",
    )
    write('commands/knowledge/index.ts', "export * from './entry'\n")
    write('domain/knowledge/page.ts', 'export const page = 1\n')
    write('commands/handle.ts', "import { write } from './pages/write'\nexport const handle = write\n")
    write('commands/fine.ts', "import { write } from './pages'\nexport const fine = write\n")
    write('projections/rows.ts', 'export const TABLE = 1\n')
    write('queries/read.ts', "import { TABLE } from '../projections/rows'\nexport const read = TABLE\n")
    write('domain/knowledge/index.ts', "export * from './page'\n")
    write('workers/run.ts', "import { page } from '../domain/knowledge'\nexport const run = page\n")
    // Pages' projection reads knowledge's events, and knowledge's query pages' (in other layers: still a pair).
    write('projections/pages/rows.ts', "import { page } from '../../domain/knowledge'\nexport const rows = page\n")
    write('domain/pages/index.ts', 'export const pageEvent = 1\n')
    write(
      'queries/knowledge/list.ts',
      "import { pageEvent } from '../../domain/pages'\nexport const list = pageEvent\n",
    )
    const uses = new Map([
      ['pages', ['knowledge']],
      ['knowledge', []],
    ])
    const found = await check(dir, ['domain', 'api', 'commands', 'projections', 'queries', 'workers'], uses)
    assert.equal(
      found.filter((v) => v.startsWith('capability-uses-undeclared')),
      ['capability-uses-undeclared: knowledge -> pages (queries/knowledge/list.ts -> domain/pages/index.ts)'],
    )
    assert.equal(
      found.filter((v) => v.startsWith('capabilities-both-ways')),
      [
        'capabilities-both-ways: knowledge <-> pages (queries/knowledge/list.ts -> domain/pages/index.ts; ' +
          'commands/pages/write.ts -> commands/knowledge/entry.ts)',
      ],
    )
    const past = found.filter((v) => v.includes('-index'))
    assert.equal(past.sort(), [
      'capability-reached-past-its-index: commands/pages/write.ts -> commands/knowledge/entry.ts',
      'shared-code-reaches-past-an-index: commands/handle.ts -> commands/pages/write.ts',
    ])
    assert.ok(
      found.some((v) => v.startsWith('domain-imports-upward: domain/rule.ts -> api/route.ts')),
      found.join('\n'),
    )
    assert.ok(
      found.some((v) => v.startsWith('no-circular: commands/')),
      found.join('\n'),
    )
    assert.ok(found.includes('queries-import-projections: queries/read.ts -> projections/rows.ts'), found.join('\n'))
    assert.ok(
      found.includes('request-path-knows-a-capability: api/route.ts -> domain/knowledge/index.ts'),
      found.join('\n'),
    )
    assert.ok(found.includes('workers-import-domain: workers/run.ts -> domain/knowledge/index.ts'), found.join('\n'))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test('the capabilities declare uses that lean one way, on capabilities of the list', () => {
  const names = capabilities.map((c) => c.name)
  assert.equal(
    capabilities.flatMap((c) =>
      c.uses.filter((u) => !names.includes(u) || u === c.name).map((u) => `${c.name} -> ${u}`),
    ),
    [],
  )
  // Depth-first from each capability: reaching itself again is a circle of declarations.
  const reaches = (from: string, seen: string[]): string[] =>
    (capabilities.find((c) => c.name === from)?.uses ?? []).flatMap((u) =>
      seen.includes(u) ? [[...seen, u].join(' -> ')] : reaches(u, [...seen, u]),
    )
  assert.equal(
    names.flatMap((n) => reaches(n, [n])),
    [],
  )
})

// A capability's index.ts is what others may use of it: named one by one, so that nothing becomes
// another capability's to import without a line here saying so.
test("a capability's index.ts names what it exports", () => {
  const barrels = CAPABILITY_LAYERS.split('|').flatMap((layer) =>
    CAPABILITIES.split('|')
      .map((capability) => path.join(layer, capability, 'index.ts'))
      .filter((file) => fs.existsSync(file)),
  )
  assert.ok(barrels.length > 20, `found ${barrels.length} index files`)
  assert.equal(
    barrels.filter((file) => /^export \*/m.test(fs.readFileSync(file, 'utf8'))),
    [],
  )
})

/** Source files (TypeScript, with or without JSX) under the given folders, recursively. */
const sources = (folders: string[]): string[] =>
  folders.flatMap((folder) =>
    fs
      .readdirSync(folder, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.tsx?$/.test(f))
      .map((f) => path.join(folder, f)),
  )

/** Lines longer than the formatter's width, which it cannot fold (long strings, templates, comments). */
const longLines = (files: string[], width = 120) =>
  files.flatMap((file) =>
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (line.length > width ? [`${file}:${i + 1} (${line.length})`] : [])),
  )

test('every source line is at most 120 characters', () => {
  const folders = [...LAYERS, 'testkit', 'test', 'web'].filter((f) => fs.existsSync(f))
  // The console's API types are written by scripts/openapi.ts; their lines are the generator's.
  const files = sources(folders).filter((f) => f !== path.join('web', 'src', 'schema.d.ts'))
  assert.ok(files.length > 100, `found ${files.length} source files`)
  assert.equal(longLines(files), [])
})

test('the line check finds a long line', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-lines-'))
  try {
    fs.writeFileSync(path.join(dir, 'a.ts'), `const ok = 1\nconst long = '${'x'.repeat(120)}'\n`)
    fs.writeFileSync(path.join(dir, 'b.tsx'), `export const B = () => <p>${'x'.repeat(120)}</p>\n`)
    fs.writeFileSync(path.join(dir, 'c.css'), `p { content: '${'x'.repeat(120)}' }\n`)
    assert.equal(longLines(sources([dir]).sort()), [
      `${path.join(dir, 'a.ts')}:2 (135)`,
      `${path.join(dir, 'b.tsx')}:1 (150)`,
    ])
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
