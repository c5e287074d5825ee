import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { Decider } from '../shared'

/**
 * What one result served (an answer receipt keeps these): the entry, its stream's revision whose
 * content was served (named `version` when it was first written; shown as the entry's version, from 1),
 * the chunk and its hash.
 */
export const ServedEntry = t.type({ entryId: t.string, version: t.number, chunkIndex: t.number, sha256: t.string })

/** One search as served: a batch of citations, one per entry (or page version) in its results. */
export const SearchServed = t.type({
  type: t.literal('SearchServed'),
  data: t.intersection([
    t.type({
      searchId: t.string,
      workspaceId: t.string,
      mode: t.string,
      resultCount: t.number,
      entryIds: t.array(t.string),
    }),
    // The receipt (searches recorded before receipts have none): the query, the position the read
    // models had reached, and each result as served.
    // asOf: the log position a search as of a past moment answered for.
    // receipt: the signed token the answer handed out.
    // askedMode, filters and minScore: as asked (a rebuild's replay asks the query again the same way;
    // mode is the one that answered, text where the vector leg could not).
    t.partial({
      query: t.string,
      askedMode: t.string,
      filters: t.partial({
        source: t.string,
        category: t.string,
        tag: t.string,
        folderId: t.string,
        // Conditions on metadata keys, and bounds on entries' times (ISO), as the search read them.
        metadata: t.UnknownRecord,
        createdAt: t.partial({ gt: t.string, gte: t.string, lt: t.string, lte: t.string }),
        updatedAt: t.partial({ gt: t.string, gte: t.string, lt: t.string, lte: t.string }),
      }),
      minScore: t.number,
      position: t.number,
      served: t.array(ServedEntry),
      asOf: t.number,
      receipt: t.string,
    }),
  ]),
})
export type SearchServed = t.TypeOf<typeof SearchServed>

export type SearchCommand = { type: 'RecordSearch'; data: SearchServed['data'] }

export const search: Decider<SearchCommand, SearchServed, { recorded: boolean }> = {
  events: SearchServed,
  initialState: () => ({ recorded: false }),
  evolve: () => ({ recorded: true }),
  decide: (command, state) => E.right(state.recorded ? [] : [{ type: 'SearchServed', data: command.data }]),
}

/** A page version served; `count` times when the serves of a public pack were counted together (1 when absent). */
const PageCitation = t.intersection([
  t.type({ pageId: t.string, version: t.number }),
  t.partial({ count: t.number, sha256: t.string }),
])

/** A public pack's answer as served, once per distinct answer in a period (its id is the answer's hash). */
const PackReceipt = t.type({
  searchId: t.string,
  query: t.string,
  position: t.number,
  citations: t.array(t.type({ pageId: t.string, version: t.number, sha256: t.string })),
})

/**
 * One search over pages as served: a batch of citations, one per page version in its results. A
 * public pack's searches are counted together: one event per pack and mode for each period, each
 * citation with how many times it was served, and the receipts of the distinct answers.
 */
export const PageSearchServed = t.type({
  type: t.literal('PageSearchServed'),
  data: t.intersection([
    t.type({ searchId: t.string, workspaceId: t.string, mode: t.string, citations: t.array(PageCitation) }),
    // Set when the search came through a public pack; a receipt's query and position otherwise.
    t.partial({
      packSlug: t.string,
      query: t.string,
      position: t.number,
      receipts: t.array(PackReceipt),
      receipt: t.string,
    }),
  ]),
})
export type PageSearchServed = t.TypeOf<typeof PageSearchServed>

export const pageSearch: Decider<
  { type: 'RecordPageSearch'; data: PageSearchServed['data'] },
  PageSearchServed,
  { recorded: boolean }
> = {
  events: PageSearchServed,
  initialState: () => ({ recorded: false }),
  evolve: () => ({ recorded: true }),
  decide: (command, state) => E.right(state.recorded ? [] : [{ type: 'PageSearchServed', data: command.data }]),
}
