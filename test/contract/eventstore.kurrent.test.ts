import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { KurrentEventStore, positionNumber, streamState } from '../../adapters/eventstore/kurrent'
import { eventStoreContract } from './eventstore'

// The mapping of the port onto the client's types, checked without a server.
const mapping = suite('event store on EventStoreDB: mapping')
mapping('expected revisions map to the client stream states', () => {
  assert.equal((['any', 'no_stream', 'stream_exists', 7] as const).map(streamState), [
    'any',
    'no_stream',
    'stream_exists',
    7n,
  ])
})
mapping('a position is one number when commit and prepare agree, and refused otherwise', () => {
  assert.is(positionNumber({ commit: 1234n, prepare: 1234n }), 1234)
  assert.throws(() => positionNumber({ commit: 1234n, prepare: 1300n }), /differ/)
  assert.throws(() => positionNumber({ commit: 2n ** 60n, prepare: 2n ** 60n }), /2\^53/)
})
mapping.run()

const url = process.env.EVENTSTORE_URL
if (!url) {
  // No EventStoreDB server runs in this repository's CI: reported as skipped, never as passed.
  const skipped = suite('event store contract on EventStoreDB (EVENTSTORE_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.run()
} else {
  eventStoreContract(
    'kurrent adapter on EventStoreDB',
    async () => {
      const store = await KurrentEventStore.open(url)
      return { store, close: () => store.close() }
    },
    { refusesLoneSurrogates: false },
  ).run()
}
