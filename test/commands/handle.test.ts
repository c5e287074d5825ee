import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as E from 'fp-ts/Either'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { type CommandContext, handle } from '../../commands/handle'
import { search } from '../../domain/search'
import { testPglite } from '../helpers/db'

const test = suite<{ store: PostgresEventStore; close: () => Promise<void> }>('command handler')

test.before(async (ctx) => {
  const db = await testPglite()
  const store = await PostgresEventStore.open(db)
  ctx.store = store
  ctx.close = async () => (await store.close(), await db.close())
})
test.after(async (ctx) => ctx.close())

const ctx: CommandContext = { actor: { kind: 'system', process: 'test' }, at: new Date().toISOString(), correlationId: 'c-1', workspaceId: 'w-1' }
const record = { type: 'RecordSearch' as const, data: { searchId: 's-1', workspaceId: 'w-1', mode: 'text', resultCount: 0, entryIds: [] } }

test('a fresh stream is written without a read; a stream that was not fresh after all is re-read and decided again', async ({ store }) => {
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
})

test.run()
