import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as t from 'io-ts'
import { encodeAnswer } from '../../api/answers'
import { Author } from '../../api/answers'
import * as c from '../../api/codecs'
import { Entry } from '../../api/knowledge/answers'

const test = suite("answers: encoded by their route's codec")
const Codec = c.object({ id: t.string, author: Author }, { note: t.string })

test('a field the codec does not declare never leaves; checked, it is an error naming the route and the field', () => {
  const sent = { id: 'a', author: { kind: 'agent', client: 'bot', keyId: 'key-1' }, secret: 's' }
  assert.equal(encodeAnswer(Codec, sent, false, 'GET /x'), { id: 'a', author: { kind: 'agent', client: 'bot' } })
  assert.throws(
    () => encodeAnswer(Codec, sent, true, 'GET /x'),
    (e: Error) =>
      e.message.startsWith('GET /x answered outside its declared shape') &&
      e.message.includes('data.author.keyId') &&
      e.message.includes('data.secret'),
  )
})

test('checked, an answer missing a required field, or of the wrong type, is an error', () => {
  assert.throws(() => encodeAnswer(Codec, { id: 'a' }, true, 'GET /x'), /data\.author/)
  assert.throws(
    () => encodeAnswer(Codec, { id: 1, author: { kind: 'system', process: 'p' } }, true, 'GET /x'),
    /data\.id/,
  )
  assert.equal(encodeAnswer(Codec, { id: 'a', author: { kind: 'system', process: 'p' } }, true, 'GET /x'), {
    id: 'a',
    author: { kind: 'system', process: 'p' },
  })
})

test('an entry answer keeps every field the service shows, dates as strings', () => {
  const entry = {
    id: 'e',
    workspaceId: 'w',
    title: 'T',
    content: 'C',
    source: 'manual',
    metadata: { tags: ['x'] },
    externalReferenceIds: { crm: '1' },
    searchableText: 'T C',
    isEnabled: true,
    tokenCount: 2,
    folderId: 'f',
    processingStatus: 'completed',
    processingProgress: 100,
    citedCount: 0,
    freshness: 'current',
    verified: { at: '2026-01-01T00:00:00.000Z', by: 'u' },
    createdBy: 'u',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  }
  assert.equal(encodeAnswer(Entry, entry, true, 'GET /api/v1/knowledge/:id'), entry)
})

test.run()
