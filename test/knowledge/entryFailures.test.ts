import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MAX_TEXT_CHARS } from '../../ingestion/parsers'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok } from '../helpers/service'
import { type Site, html } from '../helpers/site'
import { send, startUploads } from '../helpers/uploads'
import { createUrl, startUrlEntries } from '../helpers/urls'

const test = suite<{ service: TestService; owner: Member }>(
  'API: an entry whose processing failed says why, and has nothing to verify',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

/** A text file whose extracted text is over the limit: accepted (201), then its task fails. */
const tooLong = Buffer.from('word '.repeat(MAX_TEXT_CHARS / 4))

test('a failed entry carries its failure and reason, read alone and in the list', async ({ service, owner }) => {
  const created = ok(await send(service, owner, tooLong, 'long.txt'), 201)
  assert.not.ok(created.failure, 'nothing failed yet')
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'failed')
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.is(entry.processingStatus, 'failed')
  assert.ok(entry.failure, JSON.stringify(entry))
  assert.is(entry.failure.reason, `the extracted text is ${tooLong.length - 1} characters, over the limit of 500000`)
  assert.is(entry.failure.reason, task.error)
  assert.is(entry.failure.taskId, created.taskId)
  assert.is(entry.failure.at, task.completedAt)
  for (const query of ['', '&includeContent=false']) {
    const list = ok(await service.call('GET', `/api/v1/knowledge?limit=100${query}`, { token: owner.token }))
    const item = list.items.find((i: any) => i.id === created.id)
    assert.equal(item.failure, entry.failure, query)
  }
  // Without content it vouches for nothing, however recent: not current, and not listed as current.
  assert.is(entry.freshness, 'unknown')
  const current = ok(await service.call('GET', '/api/v1/knowledge?limit=100&freshness=current', { token: owner.token }))
  assert.not.ok(
    current.items.some((i: any) => i.id === created.id),
    'listed as current',
  )
  const unknown = ok(await service.call('GET', '/api/v1/knowledge?limit=100&freshness=unknown', { token: owner.token }))
  assert.ok(
    unknown.items.some((i: any) => i.id === created.id),
    'listed as unknown',
  )
})

test('content written to a failed entry puts the failure behind it: complete, no failure, verifiable', async ({
  service,
  owner,
}) => {
  const created = ok(await send(service, owner, tooLong, 'long-then-written.txt'), 201)
  assert.is((await waitForTask(service.call, owner.token, created.taskId)).status, 'failed')
  const path = `/api/v1/knowledge/${created.id}`
  ok(await service.call('PATCH', path, { token: owner.token, body: { content: 'Now it has content.' } }))
  const entry = ok(await service.call('GET', path, { token: owner.token }))
  assert.equal(
    [entry.content, entry.processingStatus, entry.processingProgress],
    ['Now it has content.', 'completed', 100],
  )
  assert.is(entry.failure, undefined)
  ok(await service.call('POST', `${path}/verify`, { token: owner.token }))
})

test('an entry that did not fail has no failure', async ({ service, owner }) => {
  const created = ok(await send(service, owner, Buffer.from('Numbats eat termites.'), 'fine.txt'), 201)
  assert.is((await waitForTask(service.call, owner.token, created.taskId)).status, 'completed')
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.is(entry.processingStatus, 'completed')
  assert.not.ok('failure' in entry)
})

test('verifying an entry without content is refused (400) and records nothing', async ({ service, owner }) => {
  const created = ok(await send(service, owner, tooLong, 'long-again.txt'), 201)
  await waitForTask(service.call, owner.token, created.taskId)
  const refused = expectError(
    await service.call('POST', `/api/v1/knowledge/${created.id}/verify`, { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  assert.is(refused.message, 'the entry has no content to verify')
  assert.equal(refused.details, ['id: the entry has no content: its processing failed'])
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.not.ok(entry.verified)
  const events = ok(
    await service.call('GET', `/api/v1/audit/events?streamId=entry-${created.id}&limit=100`, { token: owner.token }),
  )
  assert.ok(events.events.length > 0)
  assert.not.ok(
    events.events.some((e: any) => e.type === 'EntryVerified'),
    JSON.stringify(events.events.map((e: any) => e.type)),
  )
  // An entry with content is verified as before.
  const text = ok(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { title: 'Quokkas', content: 'Quokkas live on Rottnest Island.', source: 'text' },
    }),
    201,
  )
  ok(await service.call('POST', `/api/v1/knowledge/${text.id}/verify`, { token: owner.token }))
})

test.run()

const urls = suite<{ service: TestService; site: Site; owner: Member }>(
  'API: a URL entry whose processing failed says why, until a sync fills it',
)

urls.before(startUrlEntries)
urls.after(async ({ service, site }) => (await service.stop(), await site.close()))

urls(
  "the failure is the latest one's while the entry has no content, and goes once a sync fills it",
  async ({ service, site, owner }) => {
    const read = async (id: string) => ok(await service.call('GET', `/api/v1/knowledge/${id}`, { token: owner.token }))
    const sync = async (id: string) => {
      const queued = ok(await service.call('POST', `/api/v1/knowledge/${id}/sync`, { token: owner.token }), 202)
      return waitForTask(service.call, owner.token, queued.taskId)
    }
    site.pages.set('/gone', { status: 404, body: 'no' })
    const created = ok(await createUrl(service, owner.token, `${site.url}/gone`), 201)
    const first = await waitForTask(service.call, owner.token, created.taskId)
    assert.is(first.status, 'failed')
    assert.equal((await read(created.id)).failure, { reason: first.error, taskId: first.id, at: first.completedAt })
    assert.match(first.error, 'HTTP 404')
    site.pages.set('/gone', { status: 503, body: 'busy' })
    const second = await sync(created.id)
    assert.is(second.status, 'failed')
    const entry = await read(created.id)
    assert.is(entry.processingStatus, 'failed')
    assert.equal([entry.failure.reason, entry.failure.taskId], [second.error, second.id])
    assert.match(entry.failure.reason, 'HTTP 503')
    site.pages.set('/gone', { body: html('Back', '<p>Bandicoots are back.</p>') })
    assert.is((await sync(created.id)).status, 'completed')
    const filled = await read(created.id)
    assert.is(filled.processingStatus, 'completed')
    assert.not.ok('failure' in filled)
  },
)

urls.run()
