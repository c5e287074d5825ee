import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { auditProjector } from '../../projections/log'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite("projector spec: the audit trail (a workspace's events, without secrets, cut with deletions)")
const spec = projectorSpec(auditProjector)

const inWorkspace = { metadata: { workspaceId: 'ws-1' } }

test('a workspace’s events are kept, without hashes or secrets; a webhook shows only its origin', () =>
  spec
    .given([
      // No workspace (a user registered): not in any workspace's trail.
      { type: 'UserRegistered', data: { userId: 'u', email: 'u@example.com', name: 'U' } },
      {
        type: 'ApiKeyIssued',
        data: { keyId: 'k', workspaceId: 'ws-1', name: 'bot', keyHash: 'secret-hash' },
        streamId: 'apikey-k',
        ...inWorkspace,
      },
      {
        type: 'WebhookRegistered',
        data: { webhookId: 'w', url: 'https://hooks.example.com/T000/B000/XXXX', secret: 'whsec_x', events: ['*'] },
        streamId: 'webhook-w',
        ...inWorkspace,
      },
    ])
    .then((rows) => {
      assert.equal(
        rows.audit_events.map((r) => [r.type, r.data]),
        [
          ['ApiKeyIssued', { keyId: 'k', workspaceId: 'ws-1', name: 'bot' }],
          ['WebhookRegistered', { webhookId: 'w', url: 'https://hooks.example.com/…', events: ['*'] }],
        ],
      )
    }))

test("an entry's deletion cuts its earlier events from the trail: who deleted it, and when, stay", () =>
  spec
    .given([
      { type: 'EntryCreated', data: { entryId: 'e', title: 'T' }, streamId: 'entry-e', ...inWorkspace },
      { type: 'EntryUpdated', data: { entryId: 'e', changes: {} }, streamId: 'entry-e', ...inWorkspace },
      { type: 'FolderCreated', data: { folderId: 'f', name: 'F' }, streamId: 'folder-f', ...inWorkspace },
      { type: 'EntryDeleted', data: { entryId: 'e' }, streamId: 'entry-e', ...inWorkspace },
    ])
    .then((rows) => {
      assert.equal(rows.audit_events.map((r) => [r.stream_id, r.type]).sort(), [
        ['entry-e', 'EntryDeleted'],
        ['folder-f', 'FolderCreated'],
      ])
    }))

test.run()
