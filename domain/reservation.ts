import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, fail, assertNever } from './shared'

// A reservation stream holds a unique key (an email, a slug, a folder name) for one owner.
// A key whose owner never came into being (a crash between the two appends) can be taken over
// once the reservation is older than ORPHAN_AFTER_MS: a younger one may still be mid-creation.
export const ORPHAN_AFTER_MS = 60_000

export const KeyReserved = t.type({
  type: t.literal('KeyReserved'),
  data: t.type({ key: t.string, ownerId: t.string, at: t.string }),
})
export type KeyReserved = t.TypeOf<typeof KeyReserved>
export const KeyReleased = t.type({
  type: t.literal('KeyReleased'),
  data: t.type({ key: t.string, ownerId: t.string }),
})
export type KeyReleased = t.TypeOf<typeof KeyReleased>

export const ReservationEvent = t.union([KeyReserved, KeyReleased])
export type ReservationEvent = t.TypeOf<typeof ReservationEvent>

export type ReservationCommand =
  | { type: 'Reserve'; data: { key: string; ownerId: string; holderExists: boolean; at: string } }
  | { type: 'Release'; data: { key: string; ownerId: string } }

export type ReservationState = { ownerId: string | null; reservedAt: string | null }

export const reservation: Decider<ReservationCommand, ReservationEvent, ReservationState> = {
  events: ReservationEvent,
  initialState: () => ({ ownerId: null, reservedAt: null }),
  evolve: (_state, event) =>
    event.type === 'KeyReserved'
      ? { ownerId: event.data.ownerId, reservedAt: event.data.at }
      : { ownerId: null, reservedAt: null },
  decide: (command, state) => {
    switch (command.type) {
      case 'Reserve':
        if (state.ownerId === command.data.ownerId) return E.right([])
        if (state.ownerId !== null) {
          // holderExists: whether the current holder's own stream exists (known only to the handler).
          const orphaned =
            !command.data.holderExists &&
            Date.parse(command.data.at) - Date.parse(state.reservedAt ?? '') > ORPHAN_AFTER_MS
          if (!orphaned) return fail('CONFLICT', `${command.data.key} is already taken`)
        }
        return E.right([
          { type: 'KeyReserved', data: { key: command.data.key, ownerId: command.data.ownerId, at: command.data.at } },
        ])
      case 'Release':
        if (state.ownerId !== command.data.ownerId) return E.right([])
        return E.right([{ type: 'KeyReleased', data: command.data }])
      default:
        return assertNever(command)
    }
  },
}
