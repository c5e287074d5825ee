import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { Decider } from './shared'

/** One search as served: a batch of citations, one per entry (or page version) in its results. */
export const SearchServed = t.type({
  type: t.literal('SearchServed'),
  data: t.type({
    searchId: t.string,
    workspaceId: t.string,
    mode: t.string,
    resultCount: t.number,
    entryIds: t.array(t.string),
  }),
})
export type SearchServed = t.TypeOf<typeof SearchServed>

export type SearchCommand = { type: 'RecordSearch'; data: SearchServed['data'] }

export const search: Decider<SearchCommand, SearchServed, { recorded: boolean }> = {
  events: SearchServed,
  initialState: () => ({ recorded: false }),
  evolve: () => ({ recorded: true }),
  decide: (command, state) => E.right(state.recorded ? [] : [{ type: 'SearchServed', data: command.data }]),
}
