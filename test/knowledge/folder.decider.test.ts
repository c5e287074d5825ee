import { suite } from 'uvu'
import { folder } from '../../domain/knowledge/folder'
import { given } from '../../testkit/spec'
import { FOLDER, WS, created, deleteFolder, update } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: folder')

const folderDeleted = { type: 'FolderDeleted' as const, data: { folderId: FOLDER } }

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

test.run()
