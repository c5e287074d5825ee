import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { docx, pdf } from '../../testkit/files'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, ok, seedMember } from '../helpers/service'
import { type Site, html } from '../helpers/site'
import { createUrl, startUrlEntries } from '../helpers/urls'

const test = suite<{ service: TestService; site: Site; owner: Member }>(
  'API: URL entries, crawling and processing tasks (crawls, parsers and charsets)',
)

test.before(startUrlEntries)
test.after(async ({ service, site }) => (await service.stop(), await site.close()))

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

test.run()
