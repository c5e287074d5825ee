/**
 * Projector specifications: `projectorSpec(projector).given(events).then(check)` builds the
 * projector's tables in a fresh database, applies the events, hands every row to `check`, then
 * applies every event a second time, and all of them again in one `applyEvents` call where the
 * projector has one, and requires the same rows each time (projectors are idempotent). Every pause
 * of the projector commits; where it paused, the events are also applied in a fresh database that
 * crashes after a pause (its first, middle and last), then applied again, to the same rows. A projector
 * that needs more of the database (extensions, the embedding cache) is given as a function that
 * prepares the fresh database and answers the projector.
 */
import * as assert from 'uvu/assert'
import { type Database, inSlicedTransaction, inTransaction } from '../adapters/db'
import type { EventMetadata, RecordedEvent } from '../adapters/eventstore/port'
import { type Projector, handles, installProjector } from '../projections/projector'
import { testPglite } from './db'
import { dump } from './rows'

/** An event as a spec writes it: its type and data, and optionally where and when it was recorded. */
export type SpecEvent = { type: string; data: unknown } & Partial<Omit<RecordedEvent, 'metadata'>> & {
    metadata?: Partial<EventMetadata>
  }

const START = Date.parse('2026-01-01T00:00:00.000Z')

/** Events recorded one second apart, at positions 1, 2, 3…, by a person unless the spec says otherwise. */
export const recorded = (events: SpecEvent[]): RecordedEvent[] =>
  events.map(({ metadata, ...event }, i) => {
    const at = new Date(START + i * 1000).toISOString()
    return {
      id: `event-${i + 1}`,
      streamId: 'spec-1',
      revision: i,
      position: i + 1,
      time: at,
      ...event,
      metadata: {
        actor: { kind: 'human', userId: 'user-1' },
        correlationId: 'c-1',
        causationId: null,
        at,
        ...metadata,
      },
    }
  })

const CRASH = 'crashed after a pause'

/**
 * Applies the events in one transaction that every pause of the projector commits; with `crashAt`, it
 * throws after that pause (what the pauses committed stays). Answers how many pauses the events made.
 */
const applyEach = (db: Database, projector: Projector, events: RecordedEvent[], crashAt = 0) => {
  let pauses = 0
  return inSlicedTransaction(db.pool, { sliceMs: 0 }, async (tx, pause) => {
    for (const event of events)
      await projector.apply(tx, event, async () => {
        await pause()
        if (++pauses === crashAt) throw new Error(CRASH)
      })
    return pauses
  })
}

export const projectorSpec = (make: Projector | ((db: Database) => Promise<Projector>)) => ({
  given: (events: SpecEvent[]) => ({
    then: async (check: (rows: Record<string, Record<string, unknown>[]>) => void) => {
      const db = await testPglite()
      try {
        const projector = typeof make === 'function' ? await make(db) : make
        await installProjector(db, projector)
        const handled = recorded(events).filter((event) => handles(projector, event))
        const pauses = await applyEach(db, projector, handled)
        const once = await dump(db, projector)
        check(once)
        await applyEach(db, projector, handled)
        assert.equal(await dump(db, projector), once, `${projector.name}: every event applied twice`)
        if (projector.applyEvents) {
          await inTransaction(db.pool, (tx) => projector.applyEvents!(tx, handled))
          assert.equal(await dump(db, projector), once, `${projector.name}: all events again in one call`)
        }
        for (const at of pauses > 0 ? new Set([1, Math.ceil(pauses / 2), pauses]) : []) {
          const fresh = await testPglite()
          try {
            const again = typeof make === 'function' ? await make(fresh) : make
            await installProjector(fresh, again)
            const crashed = await applyEach(fresh, again, handled, at).then(
              () => false,
              (error: Error) => error.message === CRASH,
            )
            assert.ok(crashed, `${again.name}: crashed at pause ${at}`)
            await applyEach(fresh, again, handled)
            assert.equal(await dump(fresh, again), once, `${again.name}: applied again after pause ${at} of ${pauses}`)
          } finally {
            await fresh.close()
          }
        }
      } finally {
        await db.close()
      }
    },
  }),
})
