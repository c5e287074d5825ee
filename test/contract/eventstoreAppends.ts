// The contract's appends and reads: expected revisions, atomicity, order, concurrency, cuts.
import * as assert from 'uvu/assert'
import { WrongExpectedVersion } from '../../adapters/eventstore/port'
import { type ContractSuite, event, expectWrong } from './eventstoreFixtures'

export const appendCases = (test: ContractSuite, { refusesLoneSurrogates }: { refusesLoneSurrogates: boolean }) => {
  test('append to a new stream with no_stream answers revision and position', async ({ store, id }) => {
    const s = id()
    const r = await store.append(s, [event('A'), event('B')], 'no_stream')
    assert.is(r.nextExpectedRevision, 1)
    const read = await store.readStream(s)
    assert.equal(
      read.map((e) => [e.type, e.revision]),
      [
        ['A', 0],
        ['B', 1],
      ],
    )
    assert.is(read[1].position, r.position)
    assert.ok(read[0].position < read[1].position)
    assert.equal(await store.streamRevision(s), 1)
  })

  test('events carry id, type, data, metadata, stream, revision, position and time', async ({ store, id }) => {
    const s = id()
    const e = event('Thing', { a: 1, nested: { b: ['x'] } })
    await store.append(s, [e], 'no_stream')
    const [read] = await store.readStream(s)
    assert.is(read.id, e.id)
    assert.equal(read.data, e.data)
    assert.equal(read.metadata, e.metadata)
    assert.is(read.streamId, s)
    assert.ok(!Number.isNaN(Date.parse(read.time)))
  })

  test('no_stream on an existing stream fails with the actual revision', async ({ store, id }) => {
    const s = id()
    await store.append(s, [event('A'), event('B')], 'no_stream')
    await expectWrong(store.append(s, [event('C')], 'no_stream'), 1)
  })

  test('stream_exists on a missing stream fails with no_stream', async ({ store, id }) => {
    await expectWrong(store.append(id(), [event('A')], 'stream_exists'), 'no_stream')
  })

  test('exact revision succeeds when it matches and fails with the actual one otherwise', async ({ store, id }) => {
    const s = id()
    await store.append(s, [event('A')], 'no_stream')
    const r = await store.append(s, [event('B')], 0)
    assert.is(r.nextExpectedRevision, 1)
    await expectWrong(store.append(s, [event('C')], 0), 1)
    await expectWrong(store.append(s, [event('C')], 5), 1)
    await expectWrong(store.append(id(), [event('C')], 0), 'no_stream')
    assert.equal(
      (await store.readStream(s)).map((e) => e.type),
      ['A', 'B'],
    )
  })

  test('any appends whatever the state', async ({ store, id }) => {
    const s = id()
    await store.append(s, [event('A')], 'any')
    await store.append(s, [event('B')], 'any')
    await store.append(s, [event('C')], 'stream_exists')
    assert.equal(
      (await store.readStream(s)).map((e) => e.revision),
      [0, 1, 2],
    )
  })

  test('a failed append writes nothing (atomic per call)', async ({ store, id }) => {
    const s = id()
    const head = await store.headPosition()
    await expectWrong(store.append(s, [event('A'), event('B')], 3), 'no_stream')
    assert.is(await store.headPosition(), head)
    assert.equal(await store.readStream(s), [])
  })

  test('readStream from a revision with maxCount; a missing stream reads empty', async ({ store, id }) => {
    const s = id()
    await store.append(
      s,
      ['A', 'B', 'C', 'D'].map((t) => event(t)),
      'no_stream',
    )
    assert.equal(
      (await store.readStream(s, { fromRevision: 1, maxCount: 2 })).map((e) => e.type),
      ['B', 'C'],
    )
    assert.equal(await store.readStream(id()), [])
    assert.is(await store.streamRevision(id()), 'no_stream')
  })

  test('readAll after a position, in position order, across streams', async ({ store, id }) => {
    const head = await store.headPosition()
    const a = id()
    const b = id()
    await store.append(a, [event('A1')], 'no_stream')
    await store.append(b, [event('B1')], 'no_stream')
    await store.append(a, [event('A2')], 0)
    const all = await store.readAll({ after: head })
    assert.equal(
      all.map((e) => e.type),
      ['A1', 'B1', 'A2'],
    )
    const positions = all.map((e) => e.position)
    assert.equal(
      positions,
      [...positions].sort((x, y) => x - y),
    )
    assert.is(await store.headPosition(), positions[2])
    assert.equal(
      (await store.readAll({ after: positions[0], maxCount: 1 })).map((e) => e.type),
      ['B1'],
    )
  })

  test('an append the store refuses fails alone: the appends made with it are written', async ({ store, id }) => {
    const streams = [id(), id(), id(), id()]
    // Postgres refuses a lone UTF-16 surrogate in JSON (other stores may take it); appended
    // concurrently, the four share a batch where the store batches appends.
    const results = await Promise.allSettled(
      streams.map((s, i) =>
        store.append(s, [event('A', { text: i === 1 ? 'half \ud800 emoji' : `fine ${i}` })], 'no_stream'),
      ),
    )
    assert.equal(
      results.map((r, i) => (i === 1 && !refusesLoneSurrogates ? 'either' : r.status)),
      ['fulfilled', refusesLoneSurrogates ? 'rejected' : 'either', 'fulfilled', 'fulfilled'],
    )
    assert.equal(
      await Promise.all(streams.map(async (s) => (await store.readStream(s)).length)),
      results.map((r) => (r.status === 'fulfilled' ? 1 : 0)),
    )
  })

  test('two concurrent appends with the same expected revision: one wins, no gap, no duplicate', async ({
    store,
    id,
  }) => {
    const s = id()
    await store.append(s, [event('A')], 'no_stream')
    const results = await Promise.allSettled([0, 1, 2, 3].map(() => store.append(s, [event('B')], 0)))
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1)
    for (const r of results) if (r.status === 'rejected') assert.instance(r.reason, WrongExpectedVersion)
    assert.equal(
      (await store.readStream(s)).map((e) => e.revision),
      [0, 1],
    )
  })

  test('concurrent creations with no_stream: exactly one succeeds', async ({ store, id }) => {
    const s = id()
    const results = await Promise.allSettled([0, 1, 2].map(() => store.append(s, [event('A')], 'no_stream')))
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1)
    assert.is((await store.readStream(s)).length, 1)
  })

  test('truncateBefore removes earlier events and keeps the revision and the rest', async ({ store, id }) => {
    const s = id()
    await store.append(
      s,
      ['A', 'B', 'C'].map((t) => event(t)),
      'no_stream',
    )
    await store.truncateBefore(s, 2)
    assert.equal(
      (await store.readStream(s)).map((e) => [e.type, e.revision]),
      [['C', 2]],
    )
    assert.is(await store.streamRevision(s), 2)
    await store.append(s, [event('D')], 2)
    assert.not.ok((await store.readAll({})).some((e) => e.streamId === s && e.revision < 2))
  })
}
