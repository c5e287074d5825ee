import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type UndoPerformed, undo } from '../../domain/log/undo'
import { type WebhookEvent, type WebhookRegistered, webhook } from '../../domain/log/webhook'
import { given } from '../../testkit/spec'

const test = suite('log deciders: webhooks and undo')

const registration: WebhookRegistered['data'] = {
  webhookId: 'hook-1',
  workspaceId: 'ws-1',
  url: 'https://hooks.example.com/kb',
  events: ['EntryCreated'],
  secret: 'whsec_c2VjcmV0',
}
const registered: WebhookEvent = { type: 'WebhookRegistered', data: registration }
const deleted: WebhookEvent = { type: 'WebhookDeleted', data: { webhookId: 'hook-1' } }
const disabled: WebhookEvent = { type: 'WebhookDisabled', data: { webhookId: 'hook-1', reason: 'gone (410)' } }
const register = { type: 'RegisterWebhook' as const, data: registration }
const remove = { type: 'DeleteWebhook' as const, data: { webhookId: 'hook-1' } }
const disable = { type: 'DisableWebhook' as const, data: { webhookId: 'hook-1', reason: 'gone (410)' } }

test('webhook: registered once; a second registration of the same id is a CONFLICT', () => {
  given(webhook, []).when(register).then([registered])
  given(webhook, [registered]).when(register).thenFails('CONFLICT')
  given(webhook, [registered, deleted]).when(register).thenFails('CONFLICT', 'a deleted id is not reused')
})

test('webhook: deleted when it exists, enabled or disabled; unknown or deleted is NOT_FOUND', () => {
  given(webhook, [registered]).when(remove).then([deleted])
  given(webhook, [registered, disabled]).when(remove).then([deleted])
  given(webhook, []).when(remove).thenFails('NOT_FOUND')
  given(webhook, [registered, deleted]).when(remove).thenFails('NOT_FOUND')
})

test('webhook: disabled once with its reason; disabling again decides nothing; a deleted one is NOT_FOUND', () => {
  given(webhook, [registered]).when(disable).then([disabled])
  given(webhook, [registered, disabled]).when(disable).thenNothing()
  given(webhook, []).when(disable).thenFails('NOT_FOUND')
  given(webhook, [registered, deleted]).when(disable).thenFails('NOT_FOUND')
})

test('webhook: its state keeps the workspace it belongs to', () => {
  assert.equal(given(webhook, [registered, disabled]).when(remove).state, { status: 'disabled', workspaceId: 'ws-1' })
})

const undoRecord: UndoPerformed['data'] = {
  undoId: 'undo-1',
  workspaceId: 'ws-1',
  actor: 'user-2',
  from: '2026-01-01T00:00:00.000Z',
  to: '2026-01-01T01:00:00.000Z',
  force: false,
  items: [
    { kind: 'page', id: 'page-1', action: 'revert', status: 'done', toVersion: 2 },
    { kind: 'entry', id: 'entry-1', action: 'delete', status: 'skipped', reason: 'changed since by user-3' },
  ],
}
const performed: UndoPerformed = { type: 'UndoPerformed', data: undoRecord }

test('undo: the record of an undo is written once; the same undo again decides nothing', () => {
  given(undo, []).when({ type: 'RecordUndo', data: undoRecord }).then([performed])
  given(undo, [performed]).when({ type: 'RecordUndo', data: undoRecord }).thenNothing()
})

test.run()
