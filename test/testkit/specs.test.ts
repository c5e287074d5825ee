import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Projector } from '../../projections/projector'
import { webhook } from '../../domain/log/webhook'
import { projectorSpec } from '../../testkit/projectorSpec'
import { given } from '../../testkit/spec'

/** Whether the check failed (uvu's own `throws` passes its assertion errors through). */
const fails = (check: () => void) => {
  try {
    check()
  } catch {
    return true
  }
  return false
}

const test = suite('the spec kit catches what it is there to catch')

/** Counts the events it sees: applying an event twice counts it twice. */
const counting: Projector = {
  name: 'counting',
  version: 1,
  tables: ['spec_counts'],
  schema: 'CREATE TABLE spec_counts (id text PRIMARY KEY, n integer NOT NULL)',
  handles: ['Counted'],
  async apply(tx) {
    await tx.query("INSERT INTO spec_counts VALUES ('c', 1) ON CONFLICT (id) DO UPDATE SET n = spec_counts.n + 1")
  },
}

test('a projector that is not idempotent fails its spec, after its rows passed the check', async () => {
  let checked: unknown
  const error = await projectorSpec(counting)
    .given([
      { type: 'Counted', data: {} },
      { type: 'Other', data: {} },
    ])
    .then((rows) => {
      checked = rows.spec_counts
    })
    .then(
      () => undefined,
      (err: Error) => err,
    )
  assert.equal(checked, [{ id: 'c', n: 1 }], 'only the handled event was applied')
  assert.match(String(error?.message), 'counting: every event applied twice')
})

/**
 * Idempotent when applied twice, but not from what a pause left: the count is of the rows its insert
 * wrote, and applied again after the pause the insert writes none.
 */
const pausing: Projector = {
  name: 'pausing',
  version: 1,
  tables: ['spec_items', 'spec_totals'],
  schema:
    'CREATE TABLE spec_items (id text PRIMARY KEY); CREATE TABLE spec_totals (id text PRIMARY KEY, n integer NOT NULL)',
  handles: ['Counted'],
  async apply(tx, event, pause) {
    const { rowCount } = await tx.query('INSERT INTO spec_items VALUES ($1) ON CONFLICT DO NOTHING', [event.id])
    await pause()
    await tx.query(
      "INSERT INTO spec_totals VALUES ('t', $1) ON CONFLICT (id) DO UPDATE SET n = spec_totals.n + EXCLUDED.n",
      [rowCount],
    )
  },
}

test('a projector that cannot be applied again from what its pause left fails its spec', async () => {
  const error = await projectorSpec(pausing)
    .given([{ type: 'Counted', data: {} }])
    .then((rows) => assert.equal(rows.spec_totals, [{ id: 't', n: 1 }]))
    .then(
      () => undefined,
      (err: Error) => err,
    )
  assert.match(String(error?.message), 'pausing: applied again after pause 1 of 1')
})

test('a decider spec fails on other events, on a refusal it did not expect, and on an invalid event', () => {
  const registration = { webhookId: 'h', workspaceId: 'w', url: 'https://x.example', events: ['*'], secret: 's' }
  const when = given(webhook, []).when({ type: 'RegisterWebhook', data: registration })
  assert.ok(fails(() => when.then([])))
  assert.ok(fails(() => when.thenFails('CONFLICT')))
  assert.ok(
    fails(() =>
      given(webhook, [])
        .when({ type: 'DeleteWebhook', data: { webhookId: 'h' } })
        .decided(),
    ),
  )
  // The decided event, with a field its codec does not allow, is refused by then().
  const invalid = {
    type: 'WebhookRegistered' as const,
    data: { ...registration, events: 'all' as unknown as string[] },
  }
  assert.ok(fails(() => given(webhook, []).when({ type: 'RegisterWebhook', data: invalid.data }).then([invalid])))
})

test.run()
