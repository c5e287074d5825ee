import fs from 'node:fs'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { send, startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints (file names and titles)',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

test('a file name with ../ and NUL is kept only as cleaned metadata; the blob is named by hash', async ({
  service,
  owner,
}) => {
  const created = ok(
    await send(service, owner, Buffer.from('Quolls are carnivorous marsupials.'), '../../etc/pass\u0000wd.txt', {
      title: 'Quolls',
    }),
    201,
  )
  assert.is(created.storageInfo.fileName, 'passwd.txt')
  const stored = fs.readdirSync(path.join(service.dataDir, 'blobs', created.storageInfo.sha256.slice(0, 2)))
  assert.ok(stored.includes(created.storageInfo.sha256))
  assert.not.ok(fs.existsSync(path.join(service.dataDir, 'etc')))
  await waitForTask(service.call, owner.token, created.taskId)
  // NUL anywhere else in a request is refused, never a 500.
  const error = expectError(
    await send(service, owner, Buffer.from('x'), 'x.txt', { title: 'bad\u0000title' }),
    400,
    'VALIDATION_ERROR',
  )
  assert.ok(error.details?.includes('title: must not contain NUL characters'), JSON.stringify(error))
  expectError(
    await service.call('GET', '/api/v1/knowledge?search=a%00b', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { title: 't', source: 'text', content: 'a\u0000b', metadata: { tags: ['x'] } },
    }),
    400,
    'VALIDATION_ERROR',
  )
})

test('a long file name of emoji is cut between characters, never inside one', async ({ service }) => {
  const m = await seedMember(service.call)
  const name = `${'\u{1F600}'.repeat(300)}.txt`
  const created = ok(await send(service, m, Buffer.from('Wombats make cube-shaped droppings.'), name), 201)
  assert.equal([...created.storageInfo.fileName], [...name].slice(0, 255))
  assert.is((await waitForTask(service.call, m.token, created.taskId)).status, 'completed')
})

test('a file sent without a title is titled by its file name; text without one is refused', async ({
  service,
  owner,
}) => {
  const form = new FormData()
  form.append('source', 'file')
  form.append(
    'file',
    new Blob(['# Bilbies\n\nBilbies dig spiral burrows.\n'], { type: 'text/markdown' }),
    'desert-bilby_notes.md',
  )
  const res = await fetch(`${service.url}/api/v1/knowledge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
    body: form,
  })
  const created = ok({ status: res.status, body: await res.json(), headers: res.headers }, 201)
  assert.is(created.title, 'desert bilby notes')
  const refused = expectError(
    await service.call('POST', '/api/v1/knowledge', {
      token: owner.token,
      body: { source: 'text', content: 'No title.' },
    }),
    400,
    'VALIDATION_ERROR',
  )
  assert.equal(refused.details, ['title: is required when source is text'])
})

test.run()
