import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, Role, fail } from '../shared'

const membership = { workspaceId: t.string, userId: t.string, role: Role }

export const MemberAdded = t.type({ type: t.literal('MemberAdded'), data: t.type(membership) })
export type MemberAdded = t.TypeOf<typeof MemberAdded>
export const MemberRoleChanged = t.type({ type: t.literal('MemberRoleChanged'), data: t.type(membership) })
export type MemberRoleChanged = t.TypeOf<typeof MemberRoleChanged>
export const MemberRemoved = t.type({
  type: t.literal('MemberRemoved'),
  data: t.type({ workspaceId: t.string, userId: t.string }),
})
export type MemberRemoved = t.TypeOf<typeof MemberRemoved>

export const MemberEvent = t.union([MemberAdded, MemberRoleChanged, MemberRemoved])
export type MemberEvent = t.TypeOf<typeof MemberEvent>

/** Adding a member who is already one sets their role (or changes nothing); a removed member may be added again. */
export type MemberCommand =
  | { type: 'SetMember'; data: { workspaceId: string; userId: string; role: Role } }
  | { type: 'RemoveMember'; data: { workspaceId: string; userId: string } }

export type MemberState = { role: Role | null }

export const member: Decider<MemberCommand, MemberEvent, MemberState> = {
  events: MemberEvent,
  initialState: () => ({ role: null }),
  evolve: (_state, event) => ({ role: event.type === 'MemberRemoved' ? null : event.data.role }),
  decide: (command, state) => {
    if (command.type === 'RemoveMember') {
      if (state.role === null) return fail('NOT_FOUND', `user ${command.data.userId} is not a member of the workspace`)
      return E.right([{ type: 'MemberRemoved', data: command.data }])
    }
    if (state.role === null) return E.right([{ type: 'MemberAdded', data: command.data }])
    if (state.role === command.data.role) return E.right([])
    return E.right([{ type: 'MemberRoleChanged', data: command.data }])
  },
}
