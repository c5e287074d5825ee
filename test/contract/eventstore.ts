// The contract every EventStore adapter passes (run by *.test.ts files per backend).
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  AppendTooLarge,
  type EventData,
  type EventStore,
  type RecordedEvent,
  WrongExpectedVersion,
} from '../../adapters/eventstore/port'

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

const expectWrong = async (p: Promise<unknown>, actual: number | 'no_stream') => {
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
const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const deadline = Date.now() + ms
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

export const eventStoreContract = (
  name: string,
  /** `drop`: what a lost connection does to the store's reads (an embedded database has none to lose). */
  open: () => Promise<{ store: EventStore; close: () => Promise<void>; drop?: () => Promise<void> }>,
  /** Whether the backend refuses JSON holding a lone UTF-16 surrogate (Postgres does). */
  { refusesLoneSurrogates = true } = {},
) => {
  const test = suite<{
    store: EventStore
    close: () => Promise<void>
    drop?: () => Promise<void>
    id: () => string
  }>(`event store contract: ${name}`)
  test.before(async (ctx) => {
    Object.assign(ctx, await open())
    ctx.id = () => `test-${randomUUID()}`
  })
  test.after(async (ctx) => ctx.close())

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

  test('subscribeToAll catches up, then delivers live appends, once each and in order', async ({ store, id }) => {
    const head = await store.headPosition()
    const s = id()
    await store.append(s, [event('E0'), event('E1')], 'no_stream')
    const seen: RecordedEvent[] = []
    let resolve!: () => void
    const four = new Promise<void>((r) => (resolve = r))
    const sub = store.subscribeToAll({ after: head }, async (e) => {
      if (e.streamId === s) seen.push(e)
      if (seen.length === 4) resolve()
    })
    await store.append(s, [event('E2')], 1)
    await store.append(s, [event('E3')], 2)
    await Promise.race([four, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 5000))])
    await sub.unsubscribe()
    assert.equal(
      seen.map((e) => e.type),
      ['E0', 'E1', 'E2', 'E3'],
    )
  })

  test('a multi-event append reaches a live subscription whole, in order', async ({ store, id }) => {
    const head = await store.headPosition()
    const s = id()
    const seen: string[] = []
    const sub = store.subscribeToAll({ after: head }, async (e) => void (e.streamId === s && seen.push(e.type)))
    await store.append(
      s,
      ['A', 'B', 'C', 'D', 'E'].map((t) => event(t)),
      'no_stream',
    )
    await until('the five events', () => seen.length >= 5)
    await sub.unsubscribe()
    assert.equal(seen, ['A', 'B', 'C', 'D', 'E'])
  })

  test('a cut is kept by $all reads and by a subscription from the start (what a rebuild reads)', async ({
    store,
    id,
  }) => {
    const s = id()
    const appended = await store.append(
      s,
      ['Secret', 'Secret', 'Deleted'].map((t) => event(t)),
      'no_stream',
    )
    await store.truncateBefore(s, 2)
    const all = await store.readAll({})
    assert.equal(
      all.filter((e) => e.streamId === s).map((e) => e.type),
      ['Deleted'],
    )
    const replayed: string[] = []
    const sub = store.subscribeToAll({ after: 0 }, async (e) => void (e.streamId === s && replayed.push(e.type)))
    let reached = false
    const marker = id()
    const probe = store.subscribeToAll(
      { after: appended.position },
      async (e) => void (reached ||= e.streamId === marker),
    )
    await store.append(marker, [event('Marker')], 'no_stream')
    await until('the subscription to pass the cut stream', () => reached)
    await until('the replay to reach the deletion', () => replayed.includes('Deleted'))
    await Promise.all([sub.unsubscribe(), probe.unsubscribe()])
    assert.equal(replayed, ['Deleted'])
  })

  test('a cut only moves forward: an earlier revision afterwards brings nothing back', async ({ store, id }) => {
    const s = id()
    await store.append(
      s,
      ['A', 'B', 'C', 'D'].map((t) => event(t)),
      'no_stream',
    )
    await store.truncateBefore(s, 3)
    await store.truncateBefore(s, 1)
    assert.equal(
      (await store.readStream(s)).map((e) => e.type),
      ['D'],
    )
    assert.equal(
      (await store.readAll({})).filter((e) => e.streamId === s).map((e) => e.type),
      ['D'],
    )
  })

  test('a large append is stored whole, or refused as too large with the limit and nothing written', async ({
    store,
    id,
  }) => {
    const s = id()
    // 1.5 MB of multi-byte text: over EventStoreDB's default maximum append size (1 MB).
    const text = 'é'.repeat(750_000)
    try {
      await store.append(s, [event('Big', { text })], 'no_stream')
      const [read] = await store.readStream(s)
      assert.is((read.data as { text: string }).text.length, text.length)
    } catch (error) {
      assert.instance(error, AppendTooLarge)
      assert.ok((error as AppendTooLarge).limit > 0)
      assert.match((error as Error).message, /limit of \d+ bytes/)
      assert.is(await store.streamRevision(s), 'no_stream')
    }
  })

  test('a subscription goes on after its connection drops: every event once, in order', async ({ store, drop, id }) => {
    const head = await store.headPosition()
    const s = id()
    const seen: string[] = []
    const sub = store.subscribeToAll({ after: head }, async (e) => void (e.streamId === s && seen.push(e.type)))
    await store.append(s, [event('Before')], 'no_stream')
    await until('the first event', () => seen.length === 1)
    await drop?.()
    // The writer, as a client would, tries again an append its own lost connection refused (the expected
    // revision keeps a retry from writing twice).
    const append = async (events: EventData[], expected: number) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await store.append(s, events, expected)
        } catch (error) {
          if (attempt >= 3 || !/terminat|connection/i.test((error as Error).message)) throw error
        }
      }
    }
    await append([event('After1'), event('After2')], 0)
    await until('the events after the drop', () => seen.length >= 3, 30_000)
    await append([event('Later')], 2)
    await until('a later event', () => seen.length >= 4, 30_000)
    await sub.unsubscribe()
    assert.equal(seen, ['Before', 'After1', 'After2', 'Later'])
  })

  return test
}
