import { suite } from 'uvu'
import { workspace } from '../../domain/accounts/workspace'
import { given } from '../../testkit/spec'
import { WS, createWorkspace } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: workspace')

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

test.run()
