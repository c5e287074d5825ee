import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail } from '../shared'

export const UserRegistered = t.type({
  type: t.literal('UserRegistered'),
  data: t.type({ userId: t.string, email: t.string, name: t.string }),
})
export type UserRegistered = t.TypeOf<typeof UserRegistered>

export const UserEvent = UserRegistered
export type UserEvent = UserRegistered

export type UserCommand = { type: 'RegisterUser'; data: { userId: string; email: string; name: string } }

export type UserState = { exists: false } | { exists: true; email: string; name: string }

export const user: Decider<UserCommand, UserEvent, UserState> = {
  events: UserEvent,
  initialState: () => ({ exists: false }),
  evolve: (_state, event) => ({ exists: true, email: event.data.email, name: event.data.name }),
  decide: (command, state) => {
    if (state.exists) return fail('CONFLICT', `user ${command.data.userId} already exists`)
    return E.right([{ type: 'UserRegistered', data: command.data }])
  },
}
