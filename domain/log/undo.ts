import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Decider } from '../shared'

/** What an undo did to one page or entry. */
export const UndoneItem = t.intersection([
  t.type({
    kind: t.keyof({ page: null, entry: null }),
    id: t.string,
    action: t.keyof({ delete: null, revert: null, restore: null }),
    status: t.keyof({ done: null, skipped: null, failed: null }),
  }),
  t.partial({ toVersion: t.number, reason: t.string }),
])

/** One undo of everything an actor wrote in a window: the audited record of the operation. */
export const UndoPerformed = t.type({
  type: t.literal('UndoPerformed'),
  data: t.type({
    undoId: t.string,
    workspaceId: t.string,
    actor: t.string,
    from: t.string,
    to: t.string,
    force: t.boolean,
    items: t.array(UndoneItem),
  }),
})
export type UndoPerformed = t.TypeOf<typeof UndoPerformed>

export const undo: Decider<{ type: 'RecordUndo'; data: UndoPerformed['data'] }, UndoPerformed, { recorded: boolean }> =
  {
    events: UndoPerformed,
    initialState: () => ({ recorded: false }),
    evolve: () => ({ recorded: true }),
    decide: (command, state) => E.right(state.recorded ? [] : [{ type: 'UndoPerformed', data: command.data }]),
  }
