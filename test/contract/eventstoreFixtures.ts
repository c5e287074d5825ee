// What the event store contract's cases share: events to append, the context each case gets, waits.
import { randomUUID } from 'node:crypto'
import type { Test } from 'uvu'
import * as assert from 'uvu/assert'
import { type EventData, type EventStore, WrongExpectedVersion } from '../../adapters/eventstore/port'

/** What every case of the contract is given: the store, what a lost connection does, a fresh stream id. */
export interface StoreContext {
  store: EventStore
  close: () => Promise<void>
  drop?: () => Promise<void>
  id: () => string
}

export type ContractSuite = Test<StoreContext>

export const event = (type: string, data: unknown = {}): EventData => ({
  id: randomUUID(),
  type,
  data,
  metadata: {
    actor: { kind: 'system', process: 'test' },
    correlationId: randomUUID(),
    causationId: null,
    at: new Date().toISOString(),
  },
})

export const expectWrong = async (p: Promise<unknown>, actual: number | 'no_stream') => {
  try {
    await p
  } catch (e) {
    assert.instance(e, WrongExpectedVersion)
    assert.is((e as WrongExpectedVersion).actual, actual)
    return
  }
  assert.unreachable('append should have failed with WrongExpectedVersion')
}

/** Waits for a condition, failing after `ms`. */
export const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
