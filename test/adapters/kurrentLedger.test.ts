import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import { chainHead, lastChainedAt } from '../../adapters/eventstore/chain'
import {
  LEDGER,
  chainPending,
  ledgerSchema,
  recordAppending,
  recordTruncation,
  truncationsOf,
  uncut,
  verifyLedger,
} from '../../adapters/eventstore/kurrentLedger'
import type { RecordedEvent } from '../../adapters/eventstore/port'
import { testPglite } from '../../testkit/db'

// What the EventStoreDB adapter keeps in the database: the register of cuts and the hash chain,
// checked against a log held here (the server's $all as the adapter reads it).
const test = suite<{ db: Database }>('EventStoreDB ledger: truncation register and hash chain')

let log: RecordedEvent[] = []
const read = async (after: number, maxCount: number) => log.filter((e) => e.position > after).slice(0, maxCount)
/** Events as the adapter appends them: their ids recorded first, then in the log. */
const append = (streamId: string, n: number, workspaceId = 'w1') => {
  const before = log.length
  write(streamId, n, workspaceId)
  appending.push(...log.slice(before).map((e) => e.id))
}
let appending: string[] = []
/** Chains what the log holds, as the adapter does after an append. */
const chain = async (db: Database) => {
  await recordAppending(db.pool, appending.splice(0))
  await chainPending(db, read)
}
/** Events put into the log without the adapter: written straight into the server. */
const write = (streamId: string, n: number, workspaceId = 'w1') => {
  const revision = log.filter((e) => e.streamId === streamId).length
  for (let i = 0; i < n; i++)
    log.push({
      id: randomUUID(),
      type: 'Noted',
      data: { text: `${streamId} ${revision + i}` },
      metadata: {
        actor: { kind: 'system', process: 'test' },
        correlationId: 'c',
        causationId: null,
        at: '',
        workspaceId,
      },
      streamId,
      revision: revision + i,
      // Byte offsets of a log, as EventStoreDB's positions are.
      position: 1000 + log.length * 137,
      time: new Date(Date.UTC(2026, 0, 1, 0, log.length)).toISOString(),
    })
}

test.before.each(async (ctx) => {
  ctx.db = await testPglite()
  await ctx.db.pool.query(ledgerSchema)
  log = []
  appending = []
})
test.after.each(async ({ db }) => db.close())

test('a cut only moves forward, and hides what it cuts from every read', async ({ db }) => {
  append('entry-a', 4)
  append('entry-b', 2)
  await recordTruncation(db.pool, 'entry-a', 3)
  await recordTruncation(db.pool, 'entry-a', 1)
  assert.equal([...(await truncationsOf(db.pool, ['entry-a', 'entry-b']))], [['entry-a', 3]])
  const kept = await uncut(db.pool, log)
  assert.equal(
    kept.map((e) => `${e.streamId}@${e.revision}`),
    ['entry-a@3', 'entry-b@0', 'entry-b@1'],
  )
})

test('events are chained in log order, whichever process appended them; the walk verifies them', async ({ db }) => {
  append('entry-a', 3)
  append('page-b', 2, 'w2')
  append('entry-c', 1)
  await chain(db)
  // Appended elsewhere meanwhile: the next run chains them after.
  append('entry-a', 2)
  await chain(db)
  await chain(db)
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM es_chain')
  assert.is(rows[0].n, 8)
  const report = await verifyLedger(db, read)
  assert.is(report.broken, undefined, JSON.stringify(report.broken))
  assert.is(report.verified, 8)
  assert.equal(report.chains.map((c) => c.chain).sort(), ['w1', 'w2'])
  assert.is((await chainHead(db.pool, 'w1'))!.position, log[log.length - 1].position)
  // As of a time between events: the last event at or before it, from the chain's rows.
  const at = await lastChainedAt(db.pool, LEDGER, 'w2', { time: new Date(log[4].time) })
  assert.is(at!.position, log[4].position)
})

test('a cut event, kept or scavenged, counts as cut; anything else missing, edited or unchained breaks', async ({
  db,
}) => {
  append('entry-a', 3)
  append('entry-b', 2)
  await chain(db)
  await recordTruncation(db.pool, 'entry-a', 2)
  // A scavenge removed one of the cut events; the other is still in $all.
  log = log.filter((e) => !(e.streamId === 'entry-a' && e.revision === 0))
  let report = await verifyLedger(db, read)
  assert.equal([report.broken, report.cut, report.verified], [undefined, 2, 3])
  // Edited in place.
  const edited = log.find((e) => e.streamId === 'entry-b')!
  edited.data = { text: 'changed' }
  report = await verifyLedger(db, read)
  assert.match(report.broken!.reason, /edited/)
  assert.is(report.broken!.position, edited.position)
  edited.data = { text: 'entry-b 0' }
  // Gone without a cut.
  const gone = log.pop()!
  report = await verifyLedger(db, read, 'w1')
  assert.match(report.broken!.reason, /deleted/)
  log.push(gone)
  // Put into the log without being chained, before chained events.
  log.splice(2, 0, { ...gone, id: randomUUID(), position: gone.position - 50, revision: 9 })
  report = await verifyLedger(db, read)
  assert.match(report.broken!.reason, /not in the chain/)
})

test('an event written straight into the server is chained as such, and the walk names it', async ({ db }) => {
  append('entry-a', 2)
  await chain(db)
  // Another client appends to a stream of the service's, then the service appends again: the chain
  // takes in both, as it must to go on, but knows which one it did not write.
  write('entry-a', 1)
  append('entry-b', 1)
  await chain(db)
  const report = await verifyLedger(db, read)
  assert.match(report.broken!.reason, /added outside an append/)
  assert.is(report.broken!.position, log[2].position)
  assert.is(report.broken!.streamId, 'entry-a')
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM es_appending')
  assert.is(rows[0].n, 0, 'the ids recorded for the appends are consumed once chained')
})

test.run()
