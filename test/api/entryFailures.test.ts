import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MAX_TEXT_CHARS } from '../../ingestion/parsers'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok } from '../helpers/service'
import { send, startUploads } from '../helpers/uploads'

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
