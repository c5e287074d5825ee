import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { docx } from '../../testkit/files'
import { upload, waitForTask } from '../helpers/ingestion'
import { ADMIN, type Member, type TestService, ok } from '../helpers/service'
import { startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: every chunk knows its section; the heading path is indexed, embedded and served',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

/** About `words` words of prose on a topic, in sentences. */
const prose = (topic: string, words: number) =>
  Array.from(
    { length: Math.ceil(words / 10) },
    (_, i) => `The ${topic} step ${i} is done with care and patience.`,
  ).join(' ')

/** Small chunks without overlap, so that a section's chunks start inside it. */
const CHUNKING = { chunkSizeTokens: 100, overlapTokens: 0, preserveSentences: true }

const search = async ({ service, owner }: { service: TestService; owner: Member }, query: string, mode = 'hybrid') =>
  ok(
    await service.call('POST', '/api/v1/knowledge/search', {
      token: owner.token,
      body: { query, mode, minScore: 0, limit: 10 },
    }),
  ).results as { id: string; title: string; headingPath?: string; chunkIndex: number; content: string }[]

const uploaded = async (ctx: { service: TestService; owner: Member }, bytes: Buffer, name: string) => {
  const created = ok(
    await upload(
      ctx.service.url,
      ctx.owner.token,
      { source: 'file', chunkingOptions: JSON.stringify(CHUNKING) },
      { bytes, name },
    ),
    201,
  )
  assert.is((await waitForTask(ctx.service.call, ctx.owner.token, created.taskId)).status, 'completed')
  return created.id as string
}

test('Markdown: a result carries the headings above its chunk, and their words find it', async (ctx) => {
  const content = [
    '# Tapir keeping',
    '## Installation',
    '### Linux enclosures',
    prose('fencing', 160),
    '### Windows enclosures',
    `${prose('glazing', 160)} Zebrafish ponds sit beside the glazing.`,
    '## Feeding',
    prose('fruit', 60),
  ].join('\n\n')
  const created = ok(
    await ctx.service.call('POST', '/api/v1/knowledge', {
      token: ctx.owner.token,
      body: { title: 'Tapir keeping', source: 'text', content, chunkingOptions: CHUNKING },
    }),
    201,
  )
  // "zebrafish" is in the Windows section's last chunk only, which does not say "windows" itself: the heading does.
  const [hit] = await search(ctx, 'windows enclosures zebrafish', 'text')
  assert.is(hit.id, created.id)
  assert.is(hit.headingPath, 'Tapir keeping › Installation › Windows enclosures')
  assert.not.match(hit.content.toLowerCase(), 'windows')
  assert.match(hit.content, 'Zebrafish')
  const [fruit] = await search(ctx, 'fruit step', 'text')
  assert.is(fruit.headingPath, 'Tapir keeping › Feeding')
  // In vector and hybrid mode too.
  for (const mode of ['vector', 'hybrid']) {
    const found = (await search(ctx, 'zebrafish ponds beside the glazing', mode)).find((r) => r.id === created.id)
    assert.ok(found?.headingPath?.startsWith('Tapir keeping › Installation'), `${mode}: ${JSON.stringify(found)}`)
  }
  // The agent tool answers it too.
  const key = ok(
    await ctx.service.call('POST', '/api/v1/admin/api-keys', {
      token: ADMIN,
      body: { workspaceId: ctx.owner.workspaceId, name: 'agent' },
    }),
    201,
  ).api_key
  const tool = ok(
    await ctx.service.call('POST', '/api/v1/tools/native:kb_search/execute', {
      headers: { 'x-api-key': key },
      body: { arguments: { query: 'windows enclosures zebrafish', mode: 'text', minScore: 0 } },
    }),
  )
  const answered = (tool.result ?? tool).results[0]
  assert.is(answered.headingPath, 'Tapir keeping › Installation › Windows enclosures')
})

test('HTML h1-h6 and DOCX title and heading styles give paths as Markdown headings do', async (ctx) => {
  const html = Buffer.from(
    '<!doctype html><html><head><title>Okapi care</title></head><body><article>' +
      '<h1>Okapi care</h1><p>Intro to okapis.</p><h2>Diet</h2>' +
      `<h3>Leaves\n  and   shoots</h3><p>${prose('browsing', 160)}</p>` +
      `<p>${prose('leaf', 120)} Quillwort grows there.</p>` +
      '</article></body></html>',
  )
  const htmlId = await uploaded(ctx, html, 'okapi.html')
  const fromHtml = (await search(ctx, 'quillwort', 'text')).find((r) => r.id === htmlId)
  // Readability leaves out the h1 that repeats the page's title: the path starts below it.
  assert.is(fromHtml?.headingPath, 'Diet › Leaves and shoots')

  const W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
  const para = (text: string, style?: string) =>
    `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t>${text}</w:t></w:r></w:p>`
  const word = await docx([], (zip) =>
    zip.file(
      'word/document.xml',
      `<?xml version="1.0" encoding="UTF-8"?><w:document ${W}><w:body>` +
        para('Saola survey', 'Title') +
        para('Methods', 'Heading1') +
        para('Camera traps', 'Heading2') +
        para(prose('trapping', 160)) +
        para(`${prose('camera', 120)} Pangolin tracks were seen.`) +
        '</w:body></w:document>',
    ),
  )
  const docxId = await uploaded(ctx, word, 'saola.docx')
  const fromDocx = (await search(ctx, 'pangolin tracks', 'text')).find((r) => r.id === docxId)
  // The title paragraph is a level-1 heading like Heading 1: the path starts at the heading below it.
  assert.is(fromDocx?.headingPath, 'Methods › Camera traps')
  const entry = ok(await ctx.service.call('GET', `/api/v1/knowledge/${docxId}`, { token: ctx.owner.token }))
  assert.match(entry.content, /^# Saola survey\n\n# Methods\n\n## Camera traps\n\n/)
})

test('an entry without headings serves no path', async (ctx) => {
  const created = ok(
    await ctx.service.call('POST', '/api/v1/knowledge', {
      token: ctx.owner.token,
      body: { title: 'Plain note', source: 'text', content: 'Axolotls regrow their limbs.' },
    }),
    201,
  )
  const [hit] = await search(ctx, 'axolotls regrow', 'text')
  assert.is(hit.id, created.id)
  assert.is(hit.headingPath, undefined)
})

test.run()
