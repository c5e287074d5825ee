import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { type Site, html } from '../helpers/site'
import { createUrl, startUrlEntries } from '../helpers/urls'

const test = suite<{ service: TestService; site: Site; owner: Member }>(
  'API: URL entries, crawling and processing tasks (failed fetches and refused URLs)',
)

test.before(startUrlEntries)
test.after(async ({ service, site }) => (await service.stop(), await site.close()))

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

test.run()
