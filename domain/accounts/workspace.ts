import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail } from '../shared'

export const WorkspaceCreated = t.type({
  type: t.literal('WorkspaceCreated'),
  data: t.type({ workspaceId: t.string, name: t.string, slug: t.string }),
})
export type WorkspaceCreated = t.TypeOf<typeof WorkspaceCreated>

export const WorkspaceEvent = WorkspaceCreated
export type WorkspaceEvent = WorkspaceCreated

export type WorkspaceCommand = { type: 'CreateWorkspace'; data: { workspaceId: string; name: string; slug: string } }

export type WorkspaceState = { exists: false } | { exists: true; name: string; slug: string }

export const workspace: Decider<WorkspaceCommand, WorkspaceEvent, WorkspaceState> = {
  events: WorkspaceEvent,
  initialState: () => ({ exists: false }),
  evolve: (_state, event) => ({ exists: true, name: event.data.name, slug: event.data.slug }),
  decide: (command, state) => {
    if (state.exists) return fail('CONFLICT', `workspace ${command.data.workspaceId} already exists`)
    return E.right([{ type: 'WorkspaceCreated', data: command.data }])
  },
}
