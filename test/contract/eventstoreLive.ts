// The contract's subscriptions and limits: catch-up then live, cuts as a rebuild reads them, a large
// append, a dropped connection.
import * as assert from 'uvu/assert'
import { AppendTooLarge, type EventData, type RecordedEvent } from '../../adapters/eventstore/port'
import { type ContractSuite, event, until } from './eventstoreFixtures'

export const liveCases = (test: ContractSuite) => {
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
}
