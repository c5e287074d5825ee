import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { type CommandContext, handle } from '../../commands/handle'
import { search } from '../../domain/search/search'
import { type Decider, fail } from '../../domain/shared'
import { testPglite } from '../../testkit/db'

const test = suite<{ store: PostgresEventStore; close: () => Promise<void> }>('command handler')

test.before(async (ctx) => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  ctx.store = store
  ctx.close = async () => (await store.close(), await db.close())
})
test.after(async (ctx) => ctx.close())

const ctx: CommandContext = {
  actor: { kind: 'system', process: 'test' },
  at: new Date().toISOString(),
  correlationId: 'c-1',
  workspaceId: 'w-1',
}
const record = {
  type: 'RecordSearch' as const,
  data: { searchId: 's-1', workspaceId: 'w-1', mode: 'text', resultCount: 0, entryIds: [] },
}

test(
  'a fresh stream is written without a read; a stream that was not fresh after all is re-read and decided ' + 'again',
  async ({ store }) => {
    const first = await handle(store, 'search-s-1', search, record, ctx, { fresh: true })
    assert.ok(E.isRight(first))
    assert.is(first.right.events.length, 1)
    assert.is(first.right.revision, 0)
    // The same id again, claimed fresh: the append's revision check fails, the handler reads the
    // stream (already recorded) and the decider appends nothing.
    const again = await handle(store, 'search-s-1', search, record, ctx, { fresh: true })
    assert.ok(E.isRight(again))
    assert.is(again.right.events.length, 0)
    assert.is(again.right.position, 0)
    assert.is((await store.readStream('search-s-1')).length, 1)
  },
)

// A counter that may be published once it has reached 2: a command a stale (lower) count refuses.
type CounterEvent = { type: 'Counted'; data: { by: number } } | { type: 'Published'; data: { at: number } }
const counter: Decider<{ type: 'Count' } | { type: 'Publish' }, CounterEvent, { count: number; published: boolean }> = {
  events: t.union([
    t.type({ type: t.literal('Counted'), data: t.type({ by: t.number }) }),
    t.type({ type: t.literal('Published'), data: t.type({ at: t.number }) }),
  ]),
  initialState: () => ({ count: 0, published: false }),
  evolve: (state, e) =>
    e.type === 'Counted' ? { ...state, count: state.count + e.data.by } : { ...state, published: true },
  decide: (command, state) => {
    if (command.type === 'Count') return E.right([{ type: 'Counted', data: { by: 1 } }])
    if (state.count < 2) return fail('VALIDATION_ERROR', `only ${state.count} counted`)
    return E.right(state.published ? [] : [{ type: 'Published', data: { at: state.count } }])
  },
}

/** The store, counting the stream reads made through it. */
const counting = (store: PostgresEventStore) => {
  const reads = { n: 0 }
  const wrapped = new Proxy(store, {
    get: (target, prop) => {
      if (prop === 'readStream')
        return (...args: Parameters<PostgresEventStore['readStream']>) => (reads.n++, target.readStream(...args))
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { store: wrapped, reads }
}

test(
  'a stream this process wrote is decided on its fold without a read; a stale fold is caught by the ' +
    'revision check',
  async ({ store }) => {
    const { store: s, reads } = counting(store)
    const count = { type: 'Count' as const }
    assert.ok(E.isRight(await handle(s, 'counter-1', counter, count, ctx, { fresh: true })))
    const second = await handle(s, 'counter-1', counter, count, ctx)
    assert.ok(E.isRight(second))
    assert.is(second.right.revision, 1)
    assert.is(reads.n, 0)
    // Another writer counts meanwhile: the fold (revision 1) is stale, the append fails its check,
    // the handler re-reads (count 3) and appends after the other writer's event.
    await store.append(
      'counter-1',
      [
        {
          id: crypto.randomUUID(),
          type: 'Counted',
          data: { by: 1 },
          metadata: { actor: ctx.actor, correlationId: 'c', causationId: null, at: ctx.at },
        },
      ],
      1,
    )
    const third = await handle(s, 'counter-1', counter, count, ctx)
    assert.ok(E.isRight(third))
    assert.is(third.right.revision, 3)
    assert.is(reads.n, 1)
    assert.equal(
      (await store.readStream('counter-1')).map((r) => r.revision),
      [0, 1, 2, 3],
    )
  },
)

test('a refusal or a no-op decided on a stale fold is decided again on a fresh read', async ({ store }) => {
  const { store: s, reads } = counting(store)
  const meta = { actor: ctx.actor, correlationId: 'c', causationId: null, at: ctx.at }
  assert.ok(E.isRight(await handle(s, 'counter-2', counter, { type: 'Count' }, ctx, { fresh: true })))
  // Counted to 2 by another writer: the fold still says 1, which would refuse.
  await store.append('counter-2', [{ id: crypto.randomUUID(), type: 'Counted', data: { by: 1 }, metadata: meta }], 0)
  const published = await handle(s, 'counter-2', counter, { type: 'Publish' }, ctx)
  assert.ok(E.isRight(published), JSON.stringify(published))
  assert.is(published.right.events.length, 1)
  assert.is(reads.n, 1)
  // A refusal that stands on a fresh read is answered.
  const refused = await handle(s, 'counter-3', counter, { type: 'Publish' }, ctx)
  assert.ok(E.isLeft(refused))
  assert.is(refused.left.code, 'VALIDATION_ERROR')
})

test("a client's expected revision is checked against a fresh read, never against the fold", async ({ store }) => {
  const { store: s, reads } = counting(store)
  const meta = { actor: ctx.actor, correlationId: 'c', causationId: null, at: ctx.at }
  assert.ok(E.isRight(await handle(s, 'counter-4', counter, { type: 'Count' }, ctx, { fresh: true })))
  await store.append('counter-4', [{ id: crypto.randomUUID(), type: 'Counted', data: { by: 1 }, metadata: meta }], 0)
  // The client saw revision 1 (the other writer's): right, though this process's fold says 0.
  const guarded = await handle(s, 'counter-4', counter, { type: 'Count' }, ctx, { expectedRevision: 1 })
  assert.ok(E.isRight(guarded), JSON.stringify(guarded))
  assert.is(guarded.right.revision, 2)
  assert.is(reads.n, 1)
})

test("folds are kept per store: a second database in the same process never sees the first one's", async ({
  store,
}) => {
  const db = await testPglite()
  const other = await PostgresEventStore.open(db)
  try {
    assert.ok(E.isRight(await handle(store, 'counter-5', counter, { type: 'Count' }, ctx, { fresh: true })))
    assert.ok(E.isRight(await handle(store, 'counter-5', counter, { type: 'Count' }, ctx)))
    const elsewhere = await handle(other, 'counter-5', counter, { type: 'Publish' }, ctx)
    assert.ok(E.isLeft(elsewhere))
    assert.is(elsewhere.left.message, 'only 0 counted')
  } finally {
    await other.close()
    await db.close()
  }
})

test.run()
