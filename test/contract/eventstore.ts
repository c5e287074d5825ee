// The contract every EventStore adapter passes (run by *.test.ts files per backend).
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import type { EventStore } from '../../adapters/eventstore/port'
import { appendCases } from './eventstoreAppends'
import type { StoreContext } from './eventstoreFixtures'
import { liveCases } from './eventstoreLive'

export { event } from './eventstoreFixtures'

export const eventStoreContract = (
  name: string,
  /** `drop`: what a lost connection does to the store's reads (an embedded database has none to lose). */
  open: () => Promise<{ store: EventStore; close: () => Promise<void>; drop?: () => Promise<void> }>,
  /** Whether the backend refuses JSON holding a lone UTF-16 surrogate (Postgres does). */
  { refusesLoneSurrogates = true } = {},
) => {
  const test = suite<StoreContext>(`event store contract: ${name}`)
  test.before(async (ctx) => {
    Object.assign(ctx, await open())
    ctx.id = () => `test-${randomUUID()}`
  })
  test.after(async (ctx) => ctx.close())
  appendCases(test, { refusesLoneSurrogates })
  liveCases(test)
  return test
}
