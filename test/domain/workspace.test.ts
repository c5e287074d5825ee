import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { apiKey } from '../../domain/accounts/apiKey'
import { embeddings } from '../../domain/search/embeddings'
import { folder } from '../../domain/knowledge/folder'
import { defaultKbConfig, kbConfig } from '../../domain/knowledge/kbConfig'
import { pageSearch, search } from '../../domain/search/search'
import { given } from '../../testkit/spec'
import type { Decider } from '../../domain/shared'
import { user } from '../../domain/accounts/user'
import { workspace } from '../../domain/accounts/workspace'

const test = suite('workspace deciders')

const WS = 'ws-0001'
const AT = '2026-03-01T09:00:00.000Z'

// ---------------------------------------------------------------- folder

const FOLDER = 'folder-0001'
const created = {
  type: 'FolderCreated' as const,
  data: { folderId: FOLDER, workspaceId: WS, name: 'Runbooks', description: 'Ops', color: '#112233', icon: 'book' },
}
const folderDeleted = { type: 'FolderDeleted' as const, data: { folderId: FOLDER } }
const update = (changes: { name?: string; description?: string; color?: string; icon?: string }) => ({
  type: 'UpdateFolder' as const,
  data: { folderId: FOLDER, changes },
})
const deleteFolder = { type: 'DeleteFolder' as const, data: { folderId: FOLDER } }

test('folder: creating a new folder records FolderCreated with all its fields', () => {
  given(folder, [])
    .when({ type: 'CreateFolder', data: created.data })
    .then([{ type: 'FolderCreated', data: created.data }])
})

test('folder: creating a folder with only the required fields records just those', () => {
  const data = { folderId: FOLDER, workspaceId: WS, name: 'Inbox' }
  given(folder, [])
    .when({ type: 'CreateFolder', data })
    .then([{ type: 'FolderCreated', data: { folderId: FOLDER, workspaceId: WS, name: 'Inbox' } }])
})

test('folder: creating a folder that already exists is a CONFLICT', () => {
  given(folder, [created]).when({ type: 'CreateFolder', data: created.data }).thenFails('CONFLICT')
})

test('folder: creating a folder again after it was deleted is a CONFLICT', () => {
  given(folder, [created, folderDeleted]).when({ type: 'CreateFolder', data: created.data }).thenFails('CONFLICT')
})

test('folder: an update records only the fields that differ', () => {
  given(folder, [created])
    .when(update({ name: 'Playbooks', description: 'Ops', color: '#445566' }))
    .then([{ type: 'FolderUpdated', data: { folderId: FOLDER, changes: { name: 'Playbooks', color: '#445566' } } }])
})

test('folder: an update can set a field the folder was created without', () => {
  const bare = { type: 'FolderCreated' as const, data: { folderId: FOLDER, workspaceId: WS, name: 'Inbox' } }
  given(folder, [bare])
    .when(update({ icon: 'tray' }))
    .then([{ type: 'FolderUpdated', data: { folderId: FOLDER, changes: { icon: 'tray' } } }])
})

test('folder: an update that changes nothing records nothing', () => {
  given(folder, [created])
    .when(update({ name: 'Runbooks', color: '#112233' }))
    .thenNothing()
  given(folder, [created]).when(update({})).thenNothing()
})

test('folder: undefined fields in an update are not changes', () => {
  given(folder, [created])
    .when(update({ name: undefined, description: undefined }))
    .thenNothing()
})

test('folder: an update is compared with the folder as last updated', () => {
  const renamed = {
    type: 'FolderUpdated' as const,
    data: { folderId: FOLDER, changes: { name: 'Playbooks' } },
  }
  given(folder, [created, renamed])
    .when(update({ name: 'Playbooks' }))
    .thenNothing()
  given(folder, [created, renamed])
    .when(update({ name: 'Runbooks' }))
    .then([{ type: 'FolderUpdated', data: { folderId: FOLDER, changes: { name: 'Runbooks' } } }])
})

test('folder: updating a folder that does not exist is NOT_FOUND', () => {
  given(folder, [])
    .when(update({ name: 'Playbooks' }))
    .thenFails('NOT_FOUND')
})

test('folder: updating a deleted folder is NOT_FOUND, even when it would change nothing', () => {
  given(folder, [created, folderDeleted])
    .when(update({ name: 'Playbooks' }))
    .thenFails('NOT_FOUND')
  given(folder, [created, folderDeleted]).when(update({})).thenFails('NOT_FOUND')
})

test('folder: deleting an active folder records FolderDeleted', () => {
  given(folder, [created])
    .when(deleteFolder)
    .then([{ type: 'FolderDeleted', data: { folderId: FOLDER } }])
})

test('folder: deleting a folder that does not exist is NOT_FOUND', () => {
  given(folder, []).when(deleteFolder).thenFails('NOT_FOUND')
})

test('folder: deleting a folder twice is NOT_FOUND the second time', () => {
  given(folder, [created, folderDeleted]).when(deleteFolder).thenFails('NOT_FOUND')
})

// ---------------------------------------------------------------- kbConfig

const change = (changes: Parameters<typeof kbConfig.decide>[0]['data']['changes']) => ({
  type: 'ChangeKbConfig' as const,
  data: { workspaceId: WS, changes },
})
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
    defaultLimit: 20,
    minScore: 0.7,
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

// ---------------------------------------------------------------- apiKey

const KEY = 'key-0001'
const issue = {
  type: 'IssueApiKey' as const,
  data: { keyId: KEY, workspaceId: WS, name: 'ci-bot', keyHash: 'hash-ab12' },
}
const issued = { type: 'ApiKeyIssued' as const, data: issue.data }
const revoke = { type: 'RevokeApiKey' as const, data: { keyId: KEY, revokedAt: AT } }
const revoked = { type: 'ApiKeyRevoked' as const, data: revoke.data }

test('api key: issuing a new key records ApiKeyIssued with its hash', () => {
  given(apiKey, [])
    .when(issue)
    .then([{ type: 'ApiKeyIssued', data: { keyId: KEY, workspaceId: WS, name: 'ci-bot', keyHash: 'hash-ab12' } }])
})

test('api key: issuing a key that is already issued is a CONFLICT', () => {
  given(apiKey, [issued]).when(issue).thenFails('CONFLICT')
})

test('api key: issuing a key again after it was revoked is a CONFLICT', () => {
  given(apiKey, [issued, revoked]).when(issue).thenFails('CONFLICT')
})

test('api key: revoking an active key records ApiKeyRevoked with the time', () => {
  given(apiKey, [issued])
    .when(revoke)
    .then([{ type: 'ApiKeyRevoked', data: { keyId: KEY, revokedAt: AT } }])
})

test('api key: revoking a key that was never issued is NOT_FOUND', () => {
  given(apiKey, []).when(revoke).thenFails('NOT_FOUND')
})

test('api key: revoking a revoked key records nothing', () => {
  const later = { type: 'RevokeApiKey' as const, data: { keyId: KEY, revokedAt: '2026-03-02T09:00:00.000Z' } }
  given(apiKey, [issued, revoked]).when(later).thenNothing()
})

// ---------------------------------------------------------------- user

const register = {
  type: 'RegisterUser' as const,
  data: { userId: 'user-0001', email: 'ada@example.com', name: 'Ada King' },
}

test('user: registering a new user records UserRegistered', () => {
  given(user, [])
    .when(register)
    .then([{ type: 'UserRegistered', data: { userId: 'user-0001', email: 'ada@example.com', name: 'Ada King' } }])
})

test('user: registering a user that exists is a CONFLICT, whatever the email and name', () => {
  const registered = { type: 'UserRegistered' as const, data: register.data }
  given(user, [registered]).when(register).thenFails('CONFLICT')
  const other = { ...register, data: { ...register.data, email: 'other@example.com', name: 'Other' } }
  given(user, [registered]).when(other).thenFails('CONFLICT')
})

// ---------------------------------------------------------------- workspace

const createWorkspace = {
  type: 'CreateWorkspace' as const,
  data: { workspaceId: WS, name: 'Acme Support', slug: 'acme-support' },
}

test('workspace: creating a new workspace records WorkspaceCreated', () => {
  given(workspace, [])
    .when(createWorkspace)
    .then([{ type: 'WorkspaceCreated', data: { workspaceId: WS, name: 'Acme Support', slug: 'acme-support' } }])
})

test('workspace: creating a workspace that exists is a CONFLICT, even with another name and slug', () => {
  const existing = { type: 'WorkspaceCreated' as const, data: createWorkspace.data }
  given(workspace, [existing]).when(createWorkspace).thenFails('CONFLICT')
  const renamed = { ...createWorkspace, data: { workspaceId: WS, name: 'Acme', slug: 'acme' } }
  given(workspace, [existing]).when(renamed).thenFails('CONFLICT')
})

// ---------------------------------------------------------------- search

const served = {
  searchId: 'search-0001',
  workspaceId: WS,
  mode: 'hybrid',
  resultCount: 2,
  entryIds: ['entry-0001', 'entry-0002'],
}

test('search: recording a search records SearchServed with its citations', () => {
  given(search, [])
    .when({ type: 'RecordSearch', data: served })
    .then([
      {
        type: 'SearchServed',
        data: {
          searchId: 'search-0001',
          workspaceId: WS,
          mode: 'hybrid',
          resultCount: 2,
          entryIds: ['entry-0001', 'entry-0002'],
        },
      },
    ])
})

test('search: a search with no results is still recorded', () => {
  const none = { ...served, resultCount: 0, entryIds: [] }
  given(search, [])
    .when({ type: 'RecordSearch', data: none })
    .then([{ type: 'SearchServed', data: none }])
})

test('search: recording a search that is already recorded records nothing', () => {
  const recorded = { type: 'SearchServed' as const, data: served }
  given(search, [recorded]).when({ type: 'RecordSearch', data: served }).thenNothing()
  const other = { ...served, mode: 'text', resultCount: 1, entryIds: ['entry-0003'] }
  given(search, [recorded]).when({ type: 'RecordSearch', data: other }).thenNothing()
})

const pageServed = {
  searchId: 'search-0002',
  workspaceId: WS,
  mode: 'vector',
  citations: [
    { pageId: 'page-0001', version: 3 },
    { pageId: 'page-0002', version: 1 },
  ],
}

test('page search: recording a workspace page search records PageSearchServed', () => {
  given(pageSearch, [])
    .when({ type: 'RecordPageSearch', data: pageServed })
    .then([
      {
        type: 'PageSearchServed',
        data: {
          searchId: 'search-0002',
          workspaceId: WS,
          mode: 'vector',
          citations: [
            { pageId: 'page-0001', version: 3 },
            { pageId: 'page-0002', version: 1 },
          ],
        },
      },
    ])
})

test('page search: a public pack tally records its pack slug and counts', () => {
  const tally = {
    searchId: 'search-0003',
    workspaceId: WS,
    mode: 'text',
    packSlug: 'acme-faq',
    citations: [{ pageId: 'page-0001', version: 3, count: 7 }],
  }
  given(pageSearch, [])
    .when({ type: 'RecordPageSearch', data: tally })
    .then([
      {
        type: 'PageSearchServed',
        data: {
          searchId: 'search-0003',
          workspaceId: WS,
          mode: 'text',
          packSlug: 'acme-faq',
          citations: [{ pageId: 'page-0001', version: 3, count: 7 }],
        },
      },
    ])
})

test('page search: recording a page search that is already recorded records nothing', () => {
  const recorded = { type: 'PageSearchServed' as const, data: pageServed }
  given(pageSearch, [recorded]).when({ type: 'RecordPageSearch', data: pageServed }).thenNothing()
})

// ---------------------------------------------------------------- embeddings

const rebuild = {
  type: 'RebuildEmbeddings' as const,
  data: { workspaceId: WS, model: 'embed-small', chunkCount: 42 },
}

test('embeddings: a rebuild records EmbeddingsRebuilt with the model and chunk count', () => {
  given(embeddings, [])
    .when(rebuild)
    .then([{ type: 'EmbeddingsRebuilt', data: { workspaceId: WS, model: 'embed-small', chunkCount: 42 } }])
})

test('embeddings: every rebuild is recorded, even one repeating the last', () => {
  const before = { type: 'EmbeddingsRebuilt' as const, data: rebuild.data }
  given(embeddings, [before])
    .when(rebuild)
    .then([{ type: 'EmbeddingsRebuilt', data: rebuild.data }])
  const empty = { ...rebuild, data: { workspaceId: WS, model: 'all-minilm', chunkCount: 0 } }
  given(embeddings, [before, before])
    .when(empty)
    .then([{ type: 'EmbeddingsRebuilt', data: { workspaceId: WS, model: 'all-minilm', chunkCount: 0 } }])
})

// ---------------------------------------------------------------- codecs

test('every event decided passes its decider codec', () => {
  const decided = <C, Ev, S>(d: Decider<C, Ev, S>, events: Ev[], command: C) => {
    const out = given(d, events).when(command).decided()
    assert.ok(out.length > 0)
    for (const e of out) assert.ok(d.events.is(e), JSON.stringify(e))
  }
  decided(folder, [], { type: 'CreateFolder', data: created.data })
  decided(folder, [created], update({ name: 'Playbooks' }))
  decided(folder, [created], deleteFolder)
  decided(kbConfig, [], change({ ingestion: { autoEmbed: false }, search: { minScore: 0.5 } }))
  decided(apiKey, [], issue)
  decided(apiKey, [issued], revoke)
  decided(user, [], register)
  decided(workspace, [], createWorkspace)
  decided(search, [], { type: 'RecordSearch', data: served })
  decided(pageSearch, [], { type: 'RecordPageSearch', data: pageServed })
  decided(embeddings, [], rebuild)
})

test.run()
