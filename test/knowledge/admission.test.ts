import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { admit } from '../../domain/knowledge/admission'
import { type KbConfig, applyChanges, defaultKbConfig } from '../../domain/knowledge/kbConfig'
import { decision } from '../../testkit/spec'

const test = suite('admission: quotas, limits and defaults of a new entry')
const given = decision(admit)

const config = (changes: Parameters<typeof applyChanges>[1] = {}): KbConfig => applyChanges(defaultKbConfig(), changes)
const room = { entries: 0, folderExists: true }
const atRoot = { folderId: null, chunkingOptions: {} }
const pdf = { mimeType: 'application/pdf', size: 2048 }

test('defaults: chunking, embedding and the byte limit come from the configuration', () => {
  given(config(), room)
    .when(atRoot)
    .then({
      chunking: { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true },
      embed: true,
      maxBytes: 10_485_760,
    })
  given(config({ ingestion: { chunkSize: 300, chunkOverlap: 30, autoEmbed: false }, maxFileSize: 5000 }), room)
    .when({ folderId: null, chunkingOptions: { preserveSentences: false } })
    .then({
      chunking: { chunkSizeTokens: 300, overlapTokens: 30, preserveSentences: false },
      embed: false,
      maxBytes: 5000,
    })
})

test('a chunk size below the default overlap keeps its share of overlap; an overlap not below it is refused', () => {
  given(config(), room)
    .when({ folderId: null, chunkingOptions: { chunkSizeTokens: 100 } })
    .then({
      chunking: { chunkSizeTokens: 100, overlapTokens: 20, preserveSentences: true },
      embed: true,
      maxBytes: 10_485_760,
    })
  const refused = given(config(), room).when({
    folderId: null,
    chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 100 },
  })
  refused.thenFails('VALIDATION_ERROR')
  assert.equal(refused.refusal?.details, [
    'chunkingOptions.overlapTokens: must be below chunkingOptions.chunkSizeTokens',
  ])
})

test('the quota: the last free place is taken; a full knowledge base refuses with QUOTA_EXCEEDED', () => {
  given(config({ maxDocuments: 3 }), { entries: 2, folderExists: true })
    .when(atRoot)
    .then({
      chunking: { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true },
      embed: true,
      maxBytes: 10_485_760,
    })
  const full = given(config({ maxDocuments: 3 }), { entries: 3, folderExists: true }).when(atRoot)
  full.thenFails('QUOTA_EXCEEDED')
  assert.match(full.refusal?.message ?? '', 'maximum of 3 documents')
})

test('a disabled knowledge base is FORBIDDEN, before its quota', () => {
  given(config({ enabled: false }), { entries: 5000, folderExists: true })
    .when(atRoot)
    .thenFails('FORBIDDEN')
})

test('a folder that is not there is NOT_FOUND; no folder needs none', () => {
  given(config(), { entries: 0, folderExists: false })
    .when({ folderId: 'f-1', chunkingOptions: {} })
    .thenFails('NOT_FOUND')
  given(config(), { entries: 0, folderExists: false })
    .when(atRoot)
    .then({
      chunking: { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true },
      embed: true,
      maxBytes: 10_485_760,
    })
})

test('a file: its type by content against the allowed types, listed in the refusal; its size against the limit', () => {
  const admitted = { chunking: { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true }, embed: true }
  given(config(), room)
    .when({ ...atRoot, file: pdf })
    .then({ ...admitted, maxBytes: 10_485_760, mimeType: 'application/pdf' })
  const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  const refused = given(config(), room).when({ ...atRoot, file: { mimeType: docx, size: 10 } })
  refused.thenFails('VALIDATION_ERROR')
  assert.equal(refused.refusal?.details, [
    `file: the content is ${docx}, which this workspace does not allow`,
    'allowed types: text/plain, text/markdown, text/html, application/pdf',
  ])
  given(config({ maxFileSize: 2047 }), room)
    .when({ ...atRoot, file: pdf })
    .thenFails('VALIDATION_ERROR')
  given(config({ maxFileSize: 2048 }), room)
    .when({ ...atRoot, file: pdf })
    .then({ ...admitted, maxBytes: 2048, mimeType: 'application/pdf' })
})

test('Markdown is stored as plain text where only plain text is allowed, and refused where neither is', () => {
  const markdown = { mimeType: 'text/markdown', size: 10 }
  const onlyPlain = config({ allowedFileTypes: ['text/plain'] })
  given(onlyPlain, room)
    .when({ ...atRoot, file: markdown })
    .then({
      chunking: { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true },
      embed: true,
      maxBytes: 10_485_760,
      mimeType: 'text/plain',
    })
  given(config({ allowedFileTypes: ['application/pdf'] }), room)
    .when({ ...atRoot, file: markdown })
    .thenFails('VALIDATION_ERROR')
})

test('a wrong file is reported before a disabled or full knowledge base (the client fixes the file first)', () => {
  const closed = config({ enabled: false, maxDocuments: 1 })
  given(closed, { entries: 1, folderExists: false })
    .when({ ...atRoot, file: { mimeType: 'image/png', size: 1 } })
    .thenFails('VALIDATION_ERROR')
  given(closed, { entries: 1, folderExists: false })
    .when({ ...atRoot, file: pdf })
    .thenFails('FORBIDDEN')
})

test.run()
