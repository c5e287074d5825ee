import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, Role } from '../shared'

const membership = { workspaceId: t.string, userId: t.string, role: Role }

export const MemberAdded = t.type({ type: t.literal('MemberAdded'), data: t.type(membership) })
export type MemberAdded = t.TypeOf<typeof MemberAdded>
export const MemberRoleChanged = t.type({ type: t.literal('MemberRoleChanged'), data: t.type(membership) })
export type MemberRoleChanged = t.TypeOf<typeof MemberRoleChanged>

export const MemberEvent = t.union([MemberAdded, MemberRoleChanged])
export type MemberEvent = t.TypeOf<typeof MemberEvent>

/** Adding a member who is already one sets their role (or changes nothing). */
export type MemberCommand = { type: 'SetMember'; data: { workspaceId: string; userId: string; role: Role } }

export type MemberState = { role: Role | null }

export const member: Decider<MemberCommand, MemberEvent, MemberState> = {
  events: MemberEvent,
  initialState: () => ({ role: null }),
  evolve: (_state, event) => ({ role: event.data.role }),
  decide: (command, state) => {
    if (state.role === null) return E.right([{ type: 'MemberAdded', data: command.data }])
    if (state.role === command.data.role) return E.right([])
    return E.right([{ type: 'MemberRoleChanged', data: command.data }])
  },
}
