import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { defaultKbConfig, kbConfig } from '../../domain/knowledge/kbConfig'
import { given } from '../../testkit/spec'
import { WS, change } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: kbConfig')

const changed = (changes: Parameters<typeof kbConfig.decide>[0]['data']['changes']) => ({
  type: 'KbConfigChanged' as const,
  data: { workspaceId: WS, changes },
})

test('kbConfig: a workspace starts with the default configuration', () => {
  assert.equal(kbConfig.initialState(), defaultKbConfig())
  const types = ['text/plain', 'text/markdown', 'text/html', 'application/pdf']
  assert.equal(kbConfig.initialState().allowedFileTypes, types)
  assert.is(kbConfig.initialState().ingestion.chunkOverlap < kbConfig.initialState().ingestion.chunkSize, true)
})

test('kbConfig: a change of top-level fields records KbConfigChanged with the changes', () => {
  given(kbConfig, [])
    .when(change({ maxDocuments: 50, enabled: false }))
    .then([changed({ maxDocuments: 50, enabled: false })])
})

test('kbConfig: a change of a nested field records it and keeps its siblings', () => {
  given(kbConfig, [])
    .when(change({ search: { fusion: 'rrf' } }))
    .then([changed({ search: { fusion: 'rrf' } })])
  const state = [changed({ search: { fusion: 'rrf' } })].reduce(kbConfig.evolve, kbConfig.initialState())
  assert.equal(state.search, {
    defaultMode: 'hybrid',
    defaultLimit: 5,
    minScore: 0.5,
    fusion: 'rrf',
    rerank: { enabled: false, model: 'bge-reranker-base', candidates: 30 },
  })
  assert.equal(state.ingestion, defaultKbConfig().ingestion)
})

test('kbConfig: a change records the requested changes as given, unchanged fields included', () => {
  given(kbConfig, [])
    .when(change({ retentionDays: 365, freshnessDays: 30 }))
    .then([changed({ retentionDays: 365, freshnessDays: 30 })])
})

test('kbConfig: the allowed file types are replaced, not merged', () => {
  const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  given(kbConfig, [])
    .when(change({ allowedFileTypes: ['application/pdf', docx] }))
    .then([changed({ allowedFileTypes: ['application/pdf', docx] })])
  const state = kbConfig.evolve(kbConfig.initialState(), changed({ allowedFileTypes: ['application/pdf', docx] }))
  assert.equal(state.allowedFileTypes, ['application/pdf', docx])
})

test('kbConfig: a chunk overlap equal to the chunk size is a VALIDATION_ERROR', () => {
  given(kbConfig, [])
    .when(change({ ingestion: { chunkSize: 300, chunkOverlap: 300 } }))
    .thenFails('VALIDATION_ERROR')
  const refusal = given(kbConfig, []).when(change({ ingestion: { chunkOverlap: 1000 } })).refusal
  assert.is(refusal?.code, 'VALIDATION_ERROR')
  assert.equal(refusal?.details, ['ingestion.chunkOverlap: must be below ingestion.chunkSize'])
})

test('kbConfig: the overlap is checked against the merged configuration', () => {
  // the default overlap is 200: a chunk size of 200 alone is refused, of 201 is accepted
  given(kbConfig, [])
    .when(change({ ingestion: { chunkSize: 200 } }))
    .thenFails('VALIDATION_ERROR')
  given(kbConfig, [])
    .when(change({ ingestion: { chunkSize: 201 } }))
    .then([changed({ ingestion: { chunkSize: 201 } })])
  // after the size was lowered to 400, an overlap of 400 is refused though the change names no size
  const lowered = changed({ ingestion: { chunkSize: 400, chunkOverlap: 100 } })
  given(kbConfig, [lowered])
    .when(change({ ingestion: { chunkOverlap: 400 } }))
    .thenFails('VALIDATION_ERROR')
  given(kbConfig, [lowered])
    .when(change({ ingestion: { chunkOverlap: 399 } }))
    .then([changed({ ingestion: { chunkOverlap: 399 } })])
})

test('kbConfig: a change that sets the current values records nothing', () => {
  given(kbConfig, [])
    .when(change({ maxDocuments: 1000, search: { defaultMode: 'hybrid' } }))
    .thenNothing()
  given(kbConfig, []).when(change({})).thenNothing()
  given(kbConfig, [])
    .when(change({ ingestion: {}, verification: {} }))
    .thenNothing()
})

test('kbConfig: a change repeated after it was recorded records nothing', () => {
  const earlier = changed({ verification: { enabled: true }, maxFileSize: 1_048_576 })
  given(kbConfig, [earlier])
    .when(change({ verification: { enabled: true }, maxFileSize: 1_048_576 }))
    .thenNothing()
  given(kbConfig, [earlier])
    .when(change({ verification: { enabled: false } }))
    .then([changed({ verification: { enabled: false } })])
})

test.run()
