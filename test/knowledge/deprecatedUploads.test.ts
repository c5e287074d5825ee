import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { upload, waitForTask } from '../helpers/ingestion'
import { type Member, type TestService, expectError, ok, seedMember } from '../helpers/service'
import { startUploads } from '../helpers/uploads'

const test = suite<{ service: TestService; owner: Member }>(
  'API: file uploads, parsers and the deprecated upload endpoints (deprecated endpoints)',
)

test.before(startUploads)
test.after(async ({ service }) => service.stop())

test(
  'deprecated upload endpoints: title from the file name, customMetadata as a JSON string, Deprecation and ' +
    'Link headers',
  async ({ service, owner }) => {
    const r = await upload(
      service.url,
      owner.token,
      { customMetadata: JSON.stringify({ category: 'legacy', tags: ['old'] }) },
      { bytes: Buffer.from('Kakapo are flightless parrots.'), name: 'kakapo_facts.txt' },
      '/api/v1/knowledge/upload/file',
    )
    const data = ok(r, 202)
    assert.is(data.status, 'pending')
    assert.type(data.message, 'string')
    assert.is(r.headers.get('deprecation'), 'true')
    assert.match(r.headers.get('link') ?? '', '</api/v1/knowledge>')
    assert.is((await waitForTask(service.call, owner.token, data.taskId)).status, 'completed')
    const entry = ok(await service.call('GET', `/api/v1/knowledge/${data.documentId}`, { token: owner.token }))
    assert.is(entry.title, 'kakapo facts')
    assert.equal(entry.metadata, { category: 'legacy', tags: ['old'] })
    expectError(
      await upload(
        service.url,
        owner.token,
        { customMetadata: '{not json' },
        { bytes: Buffer.from('x'), name: 'x.txt' },
        '/api/v1/knowledge/upload/file',
      ),
      400,
      'VALIDATION_ERROR',
    )
    // Its category, tags and author are checked as the unified endpoint checks them, never dropped in silence.
    const m = await seedMember(service.call)
    const badFile = expectError(
      await upload(
        service.url,
        m.token,
        { customMetadata: JSON.stringify({ category: 7, tags: 'urgent', author: 'Ann' }) },
        { bytes: Buffer.from('x'), name: 'x.txt' },
        '/api/v1/knowledge/upload/file',
      ),
      400,
      'VALIDATION_ERROR',
    )
    assert.equal(
      badFile.details?.map((d) => d.split(':')[0]),
      ['customMetadata.category', 'customMetadata.tags'],
    )
    const badText = expectError(
      await service.call('POST', '/api/v1/knowledge/upload', {
        token: m.token,
        body: { sourceType: 'text', content: 'x', customMetadata: { tags: 'x' } },
      }),
      400,
      'VALIDATION_ERROR',
    )
    assert.equal(
      badText.details?.map((d) => d.split(':')[0]),
      ['customMetadata.tags'],
    )
    assert.is(ok(await service.call('GET', '/api/v1/knowledge', { token: m.token })).total, 0)

    const text = await service.call('POST', '/api/v1/knowledge/upload', {
      token: owner.token,
      body: { sourceType: 'text', content: 'Takahe were thought extinct until 1948.', title: 'Takahe' },
    })
    const queued = ok(text, 202)
    assert.is(text.headers.get('deprecation'), 'true')
    assert.is((await waitForTask(service.call, owner.token, queued.taskId)).status, 'completed')
    const takahe = ok(await service.call('GET', `/api/v1/knowledge/${queued.documentId}`, { token: owner.token }))
    assert.match(takahe.content, 'thought extinct')
    expectError(
      await service.call('POST', '/api/v1/knowledge/upload', { token: owner.token, body: { sourceType: 'url' } }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await service.call('POST', '/api/v1/knowledge/upload', { token: owner.token, body: { sourceType: 'pdf' } }),
      400,
      'VALIDATION_ERROR',
    )
  },
)

test.run()
