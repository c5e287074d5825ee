import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { waitForTask } from '../helpers/ingestion'
import { until } from '../helpers/until'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'
import { type Site, html, startSite } from '../helpers/site'
import { docx, pdf } from '../../testkit/files'

const test = suite<{ service: TestService; site: Site; owner: Member }>(
  'API: URL entries, crawling and processing tasks',
)

test.before(async (ctx) => {
  ctx.site = await startSite()
  ctx.service = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true', FETCH_TIMEOUT_MS: '2000' })
  ctx.owner = await seedMember(ctx.service.call)
})
test.after(async ({ service, site }) => (await service.stop(), await site.close()))

const createUrl = (service: TestService, token: string, url: string, extra: Record<string, unknown> = {}) =>
  service.call('POST', '/api/v1/knowledge', { token, body: { title: 'A web page', source: 'url', url, ...extra } })

test('a URL entry answers pending with a task, which runs the steps and fills the entry', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/llamas', {
    body: html(
      'Llamas',
      '<p>The llama is a domesticated South American camelid.</p><p>Llamas are social animals and live with others ' +
        'as a herd.</p>',
    ),
  })
  const created = ok(await createUrl(service, owner.token, `${site.url}/llamas`), 201)
  assert.is(created.source, 'webpage')
  assert.ok(['pending', 'processing'].includes(created.processingStatus))
  assert.ok(created.processingProgress < 100)
  assert.type(created.taskId, 'string')
  assert.is(created.syncConfig.enabled, false)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'completed', JSON.stringify(task))
  assert.is(task.progress, 100)
  assert.is(task.documentId, created.id)
  assert.ok(task.result.chunkCount >= 1)
  assert.ok(task.result.wordCount >= 15)
  assert.ok(task.result.characterCount > 50)
  assert.type(task.result.processingTimeMs, 'number')
  assert.ok(task.startedAt && task.completedAt && task.createdAt)
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.is(entry.processingStatus, 'completed')
  assert.is(entry.processingProgress, 100)
  assert.match(entry.content, 'domesticated South American camelid')
  assert.ok(entry.tokenCount > 10)
  assert.match(entry.searchableText, 'llama')
  assert.ok(entry.syncConfig.lastSyncAt)
  const found = ok(
    await service.call('POST', '/api/v1/knowledge/search', {
      token: owner.token,
      body: { query: 'camelid herd', mode: 'text', minScore: 0 },
    }),
  )
  assert.ok(
    found.results.some((r: any) => r.id === created.id),
    JSON.stringify(found),
  )
  // Each step was an event of the task's stream, in order.
  const steps = ok(
    await service.call('GET', `/api/v1/audit/events?streamId=task-${created.taskId}&limit=50`, { token: owner.token }),
  )
  const types = steps.events.map((e: any) => e.data?.step ?? e.type).reverse()
  assert.equal(types, [
    'TaskQueued',
    'TaskStarted',
    'Downloading',
    'Parsing',
    'Chunking',
    'Generating embeddings',
    'Storing',
    'TaskCompleted',
  ])
})

test("while its task runs, an entry's content cannot be changed (the task would overwrite it); its title can", async ({
  service,
  site,
}) => {
  const m = await seedMember(service.call)
  site.pages.set('/slow-vicuna', { body: html('Vicunas', '<p>Vicunas live high in the Andes.</p>'), delayMs: 1500 })
  const created = ok(await createUrl(service, m.token, `${site.url}/slow-vicuna`), 201)
  const path = `/api/v1/knowledge/${created.id}`
  const refused = expectError(
    await service.call('PATCH', path, { token: m.token, body: { content: 'My own notes on vicunas.' } }),
    409,
    'CONFLICT',
  )
  assert.match(refused.message, created.taskId)
  assert.is(
    ok(await service.call('PATCH', path, { token: m.token, body: { title: 'Vicunas of the Andes' } })).title,
    'Vicunas of the Andes',
  )
  assert.is((await waitForTask(service.call, m.token, created.taskId)).status, 'completed')
  const entry = ok(await service.call('GET', path, { token: m.token }))
  assert.match(entry.content, 'high in the Andes')
  assert.is(entry.title, 'Vicunas of the Andes')
  // Once the task has finished, the content is the client's to change.
  assert.is(
    ok(await service.call('PATCH', path, { token: m.token, body: { content: 'My own notes on vicunas.' } })).content,
    'My own notes on vicunas.',
  )
})

test('deleting an entry while its task runs fails the task at once with the reason', async ({ service, site }) => {
  const m = await seedMember(service.call)
  site.pages.set('/slow-kiwi', { body: html('Kiwis', '<p>Kiwis are nocturnal.</p>'), delayMs: 3000 })
  const created = ok(await createUrl(service, m.token, `${site.url}/slow-kiwi`), 201)
  ok(await service.call('DELETE', `/api/v1/knowledge/${created.id}`, { token: m.token }))
  // The worker is still waiting for the page: the delete itself failed the task.
  const t = ok(await service.call('GET', `/api/v1/knowledge/tasks/${created.taskId}`, { token: m.token }))
  assert.equal([t.status, t.error], ['failed', 'the entry was deleted before it was processed'])
  await new Promise((r) => setTimeout(r, 3500))
  assert.is(
    ok(await service.call('GET', `/api/v1/knowledge/tasks/${created.taskId}`, { token: m.token })).status,
    'failed',
    'and stays failed once the worker has the page',
  )
})

test('tasks: list with status filter and limit, one by id, other workspaces see none of them', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/missing-soon', { status: 404, body: 'gone' })
  const failed = ok(await createUrl(service, owner.token, `${site.url}/missing-soon`), 201)
  await waitForTask(service.call, owner.token, failed.taskId)
  const all = ok(await service.call('GET', '/api/v1/knowledge/tasks', { token: owner.token }))
  assert.ok(all.total >= 2)
  assert.is(all.tasks[0].id, failed.taskId, 'newest first')
  const onlyFailed = ok(
    await service.call('GET', '/api/v1/knowledge/tasks?status=failed&limit=1', { token: owner.token }),
  )
  assert.is(onlyFailed.tasks.length, 1)
  assert.ok(onlyFailed.tasks.every((t: any) => t.status === 'failed'))
  expectError(
    await service.call('GET', '/api/v1/knowledge/tasks?status=done', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('GET', '/api/v1/knowledge/tasks?limit=0', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('GET', '/api/v1/knowledge/tasks?page=0', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  // limit is items per page: page 2 holds the next ones.
  const first = ok(await service.call('GET', '/api/v1/knowledge/tasks?limit=1', { token: owner.token }))
  const second = ok(await service.call('GET', '/api/v1/knowledge/tasks?limit=1&page=2', { token: owner.token }))
  assert.equal(
    [first.tasks[0].id, second.tasks[0].id],
    all.tasks.slice(0, 2).map((x: any) => x.id),
  )
  assert.is(second.total, all.total)
  const stranger = await seedMember(service.call)
  expectError(
    await service.call('GET', `/api/v1/knowledge/tasks/${failed.taskId}`, { token: stranger.token }),
    404,
    'NOT_FOUND',
  )
  assert.is(ok(await service.call('GET', '/api/v1/knowledge/tasks', { token: stranger.token })).total, 0)
})

test('a failing fetch fails the task with its reason and the progress it reached; the entry shows failed', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/broken', { status: 500, body: 'oops' })
  const created = ok(await createUrl(service, owner.token, `${site.url}/broken`), 201)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'failed')
  assert.match(task.error, 'HTTP 500')
  assert.is(task.progress, 10, 'failed while downloading')
  assert.not.ok(task.result)
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.is(entry.processingStatus, 'failed')
  assert.is(entry.processingProgress, 10)
})

test('a page that cannot be parsed fails the task at the Parsing step, keeping its progress', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/huge', { body: html('Huge', `<p>${'word '.repeat(120_000)}</p>`) })
  const created = ok(await createUrl(service, owner.token, `${site.url}/huge`), 201)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'failed')
  assert.match(task.error, 'over the limit of 500000')
  assert.equal([task.progress, task.currentStep], [30, 'Parsing'])
})

test('a server that never finishes its body fails the task after the time limit', async ({ service, site, owner }) => {
  site.pages.set('/slow', { hang: true, body: '<html><body><p>never ends' })
  const created = ok(await createUrl(service, owner.token, `${site.url}/slow`), 201)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'failed')
  assert.match(task.error, 'longer than 2000 ms')
})

test('a body over the workspace maxFileSize fails the task without reading on', async ({ service, site }) => {
  const member = await seedMember(service.call)
  ok(await service.call('PATCH', '/api/v1/knowledge/config', { token: member.token, body: { maxFileSize: 4096 } }))
  site.pages.set('/huge', { type: 'text/plain', body: 'x'.repeat(20000) })
  const created = ok(await createUrl(service, member.token, `${site.url}/huge`), 201)
  const task = await waitForTask(service.call, member.token, created.taskId)
  assert.is(task.status, 'failed')
  assert.match(task.error, 'over the limit of 4096')
})

test('a redirect to the cloud metadata address is refused at that hop', async ({ service, site, owner }) => {
  site.pages.set('/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } })
  const created = ok(await createUrl(service, owner.token, `${site.url}/to-metadata`), 201)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'failed')
  assert.match(task.error, '169.254.169.254')
  site.pages.set('/loop', { status: 302, headers: { location: '/loop' } })
  const looping = ok(await createUrl(service, owner.token, `${site.url}/loop`), 201)
  assert.match((await waitForTask(service.call, owner.token, looping.taskId)).error, 'more than 5 redirects')
})

test('bad URLs are refused at once with VALIDATION_ERROR and nothing is created', async ({ service, owner }) => {
  const before = ok(await service.call('GET', '/api/v1/knowledge', { token: owner.token })).total
  const bad = [
    'file:///etc/passwd',
    'gopher://127.0.0.1:70/',
    'data:text/html,<p>x</p>',
    'ftp://example.com/x',
    'http://user:secret@example.com/',
    'http://example.com/a\nb',
    'http://example.com/\u0000',
    'not a url',
    'http://169.254.169.254/latest/meta-data/',
    'http://0xA9FEA9FE/',
    'http://2852039166/',
    'http://[::ffff:169.254.169.254]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://0.0.0.0/',
    'http://[fd00:ec2::254]/',
    'http://100.100.100.200/',
    'http://[::169.254.169.254]/latest/meta-data/',
    'http://168.63.129.16/',
    `http://example.com/${'é'.repeat(1000)}`,
  ]
  for (const url of bad) {
    const error = expectError(await createUrl(service, owner.token, url), 400, 'VALIDATION_ERROR')
    assert.ok(
      error.details?.some((d) => d.startsWith('url:')),
      `${url}: ${JSON.stringify(error)}`,
    )
  }
  expectError(
    await service.call('POST', '/api/v1/knowledge', { token: owner.token, body: { title: 'x', source: 'url' } }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await createUrl(service, owner.token, 'http://127.0.0.1/', { crawlOptions: { depth: 3 } }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await createUrl(service, owner.token, 'http://127.0.0.1/', { crawlOptions: { maxPages: 51 } }),
    400,
    'VALIDATION_ERROR',
  )
  assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: owner.token })).total, before)
})

test('a crawl makes one entry: same-domain pages once each, robots.txt honoured, chunks remember their page', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/robots.txt', { type: 'text/plain', body: 'User-agent: *\nDisallow: /private\n' })
  site.pages.set('/docs', {
    body: html(
      'Docs home',
      `<p>Welcome to the alpaca documentation hub.</p><a href="/docs/a">A</a> <a href="/docs/a#part">A again</a> <a ` +
        `href="/docs/b">B</a> <a href="/private/secret">secret</a> <a ` +
        `href="http://localhost:1/elsewhere">elsewhere</a>`,
    ),
  })
  site.pages.set('/docs/a', {
    body: html('Page A', '<p>Alpacas are shorn once a year for their fleece.</p><a href="/docs/c">C</a>'),
  })
  site.pages.set('/docs/b', { body: html('Page B', '<p>Vicuñas are wild relatives of the alpaca.</p>') })
  site.pages.set('/docs/c', { body: html('Page C', '<p>Depth two page about guanacos.</p>') })
  site.pages.set('/private/secret', { body: html('Secret', '<p>robots says no</p>') })
  const created = ok(
    await createUrl(service, owner.token, `${site.url}/docs`, { crawlOptions: { depth: 1, maxPages: 10 } }),
    201,
  )
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'completed', JSON.stringify(task))
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.match(entry.content, `# ${site.url}/docs\n`)
  assert.match(entry.content, 'shorn once a year')
  assert.match(entry.content, 'wild relatives')
  assert.not.match(entry.content, 'guanacos', 'depth 1 stops before page C')
  assert.not.match(entry.content, 'robots says no')
  assert.is(site.hits.filter((h) => h === '/docs/a').length, 1, 'deduplicated by normalised URL')
  assert.not.ok(site.hits.includes('/private/secret'))
  const chunks = await service.deps.db.pool.query<{ page_url: string }>(
    'SELECT DISTINCT page_url FROM kb_chunks WHERE entry_id = $1',
    [created.id],
  )
  assert.equal(chunks.rows.map((r) => r.page_url).sort(), [
    `${site.url}/docs`,
    `${site.url}/docs/a`,
    `${site.url}/docs/b`,
  ])
  const capped = ok(
    await createUrl(service, owner.token, `${site.url}/docs`, { crawlOptions: { depth: 2, maxPages: 2 } }),
    201,
  )
  await waitForTask(service.call, owner.token, capped.taskId)
  const pages = await service.deps.db.pool.query('SELECT DISTINCT page_url FROM kb_chunks WHERE entry_id = $1', [
    capped.id,
  ])
  assert.is(pages.rows.length, 2, 'maxPages')
})

test(
  'a crawl: pages once each also through redirects and a trailing "?", the first page’s redirected host ' +
    'kept, dead links and the content limit bound it',
  async ({ service, site, owner }) => {
    const port = new URL(site.url).port
    // localhost redirects to 127.0.0.1, whose pages link to the same page three ways.
    site.pages.set('/hop', { status: 302, headers: { location: `${site.url}/r/home` } })
    site.pages.set('/r/home', {
      body: html(
        'Home',
        '<p>Redirected home.</p><a href="/r/a">A</a> <a href="/r/a?">A?</a> <a href="/r/go-a">to A</a> <a ' +
          'href="/r/q??">Q</a>',
      ),
    })
    site.pages.set('/r/q??', { body: html('Q', '<p>A query of one question mark is a query.</p>') })
    site.pages.set('/r/go-a', { status: 302, headers: { location: '/r/a' } })
    site.pages.set('/r/a', { body: html('A', '<p>Okapis are the only living relatives of the giraffe.</p>') })
    const hopped = ok(
      await createUrl(service, owner.token, `http://localhost:${port}/hop`, { crawlOptions: { depth: 1 } }),
      201,
    )
    assert.is((await waitForTask(service.call, owner.token, hopped.taskId)).status, 'completed')
    const content: string = ok(
      await service.call('GET', `/api/v1/knowledge/${hopped.id}`, { token: owner.token }),
    ).content
    assert.is(content.split('only living relatives').length - 1, 1, content)
    assert.not.ok(site.hits.includes('/r/a?'))
    assert.match(content, 'A query of one question mark is a query.')
    // Thirty dead links: the crawl of two pages gives up on them after a few fetches.
    site.pages.set('/dead', {
      body: html(
        'Dead',
        `<p>Links to nowhere.</p>${Array.from({ length: 30 }, (_, i) => `<a href="/dead/${i}">${i}</a>`).join(' ')}`,
      ),
    })
    const dead = ok(
      await createUrl(service, owner.token, `${site.url}/dead`, { crawlOptions: { depth: 1, maxPages: 2 } }),
      201,
    )
    assert.is((await waitForTask(service.call, owner.token, dead.taskId)).status, 'completed')
    assert.ok(site.hits.filter((h) => h.startsWith('/dead/')).length <= 5, 'at most three fetches a page')
    // Three linked pages of 240,000 characters: the third would take the entry over 500,000.
    for (const n of [1, 2, 3])
      site.pages.set(`/big/${n}`, { type: 'text/plain', body: `Marker${n}. ${'lorem ipsum '.repeat(20_000)}` })
    site.pages.set('/big', {
      body: html('Big', '<p>Three big pages.</p><a href="/big/1">1</a> <a href="/big/2">2</a> <a href="/big/3">3</a>'),
    })
    const big = ok(await createUrl(service, owner.token, `${site.url}/big`, { crawlOptions: { depth: 1 } }), 201)
    assert.is((await waitForTask(service.call, owner.token, big.taskId)).status, 'completed')
    const bigContent: string = ok(
      await service.call('GET', `/api/v1/knowledge/${big.id}`, { token: owner.token }),
    ).content
    assert.ok(bigContent.length <= 500_000, String(bigContent.length))
    assert.equal(
      ['Marker1', 'Marker2', 'Marker3'].map((m) => bigContent.includes(m)),
      [true, true, false],
    )
  },
)

test('a URL answering a PDF or Markdown is read by that parser', async ({ service, site, owner }) => {
  site.pages.set('/paper.pdf', {
    type: 'application/pdf',
    body: await pdf(['Quokkas are small marsupials of Western Australia.', 'Second page on Rottnest Island.']),
  })
  site.pages.set('/notes.md', { type: 'text/markdown', body: '# Wombats\n\nWombats have cube-shaped droppings.\n' })
  site.pages.set('/mislabelled', { type: 'text/html', body: await pdf(['Numbats eat termites.']) })
  site.pages.set('/mislabelled-docx', { type: 'text/html', body: await docx(['Bilbies have long ears.']) })
  for (const [path, phrase] of [
    ['/paper.pdf', 'Rottnest Island'],
    ['/notes.md', 'cube-shaped droppings'],
    ['/mislabelled', /^Numbats eat termites\.$/],
    ['/mislabelled-docx', /^Bilbies have long ears\.$/],
  ] as const) {
    const created = ok(await createUrl(service, owner.token, site.url + path), 201)
    const task = await waitForTask(service.call, owner.token, created.taskId)
    assert.is(task.status, 'completed', JSON.stringify(task))
    assert.match(
      ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token })).content,
      phrase,
    )
  }
})

test('pages in another encoding than UTF-8 are read in the one their server or their <meta charset> declares', async ({
  service,
  site,
}) => {
  // A workspace of its own: the suite's has used much of its 20 URL entries a minute.
  const owner = await seedMember(service.call)
  const latin1 = Buffer.from(html('Café', '<p>Un café crème à emporter.</p>'), 'latin1')
  site.pages.set('/latin1', { type: 'text/html; charset=ISO-8859-1', body: latin1 })
  site.pages.set('/meta', {
    type: 'text/html',
    body: Buffer.concat([
      Buffer.from('<!doctype html><html><head><meta charset="windows-1252"><title>Quotes</title></head><body><p>'),
      Buffer.from([0x93]),
      Buffer.from('Smart quotes'),
      Buffer.from([0x94]),
      Buffer.from(' cost 5 '),
      Buffer.from([0x80]),
      Buffer.from('.</p></body></html>'),
    ]),
  })
  site.pages.set('/sjis', {
    type: 'text/plain; charset=shift_jis',
    body: Buffer.from([0x82, 0xa0, 0x82, 0xa2, 0x82, 0xa4]),
  })
  site.pages.set('/bad-charset', { type: 'text/plain; charset=no-such-encoding', body: 'x' })
  // A declared charset does not make an image text.
  site.pages.set('/image', {
    type: 'text/plain; charset=ISO-8859-1',
    body: Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      Buffer.from('IHDR'),
      Buffer.alloc(17),
    ]),
  })
  for (const [path, phrase] of [
    ['/latin1', 'Un café crème à emporter.'],
    ['/meta', '\u201cSmart quotes\u201d cost 5 \u20ac.'],
    ['/sjis', 'あいう'],
  ]) {
    const created = ok(await createUrl(service, owner.token, site.url + path), 201)
    const task = await waitForTask(service.call, owner.token, created.taskId)
    assert.is(task.status, 'completed', `${path}: ${JSON.stringify(task)}`)
    {
      const c = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token })).content
      assert.match(c, phrase, `${path}: ${JSON.stringify(c)}`)
    }
  }
  const unknown = ok(await createUrl(service, owner.token, `${site.url}/bad-charset`), 201)
  const failed = await waitForTask(service.call, owner.token, unknown.taskId)
  assert.is(failed.status, 'failed')
  assert.match(failed.error, 'no-such-encoding')
  const image = ok(await createUrl(service, owner.token, `${site.url}/image`), 201)
  const refused = await waitForTask(service.call, owner.token, image.taskId)
  assert.equal([refused.status, /image\/png/.test(refused.error)], ['failed', true], JSON.stringify(refused))
})

test('at most 10 tasks of a workspace run at once; the rest wait as pending', async ({ site }) => {
  // A service of its own whose fetches wait as long as the site holds its answers.
  const service = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true', FETCH_TIMEOUT_MS: '60000' })
  try {
    const member = await seedMember(service.call)
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    for (let i = 0; i < 13; i++)
      site.pages.set(`/busy?n=${i}`, { body: html('Busy', `<p>Page ${i} takes its time.</p>`), held })
    site.load.most = 0
    const created = []
    for (let i = 0; i < 13; i++)
      created.push(ok(await createUrl(service, member.token, `${site.url}/busy?n=${i}`), 201))
    const statuses = async () =>
      ok(await service.call('GET', '/api/v1/knowledge/tasks?limit=100', { token: member.token })).tasks.map(
        (t: any) => t.status,
      )
    await until('10 tasks fetching', () => site.load.now === 10)
    // Nothing more starts while the ten wait for their pages.
    await new Promise((r) => setTimeout(r, 300))
    const listed = await statuses()
    assert.is(site.load.now, 10)
    assert.equal(
      [listed.filter((s: string) => s === 'processing').length, listed.filter((s: string) => s === 'pending').length],
      [10, 3],
      JSON.stringify(listed),
    )
    release()
    for (const c of created) {
      const task = await waitForTask(service.call, member.token, c.taskId)
      assert.is(task.status, 'completed', JSON.stringify(task))
    }
    assert.is(site.load.most, 10)
  } finally {
    await service.stop()
  }
})

test.run()
