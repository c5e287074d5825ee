import * as t from 'io-ts'
import { AnyObject, Pagination } from '../answers'
import * as c from '../codecs'

// What the log routes answer, as io-ts codecs: each answer is encoded by its codec, and the
// OpenAPI document describes it from the same codec.

const d = c.described

export const AuditEvent = c.object(
  {
    position: t.number,
    streamId: t.string,
    revision: t.number,
    id: t.string,
    type: t.string,
    actor: AnyObject,
    data: AnyObject,
    metadata: AnyObject,
    time: t.string,
  },
  {},
  'an event of the audit trail',
)
export const AuditEvents = c.object({ events: t.array(AuditEvent), pagination: Pagination })

export const ChainHead = c.object({
  workspaceId: t.string,
  position: d(t.number, "Log position of the workspace's latest event (0: none yet)"),
  hash: d(t.string, "SHA-256 link of that event, hex: SHA-256(previous link || SHA-256(the event's canonical form))"),
  algorithm: t.literal('sha256'),
})

const webhookFields = {
  id: t.string,
  url: t.string,
  events: t.array(t.string),
  status: d(t.string, 'enabled or disabled'),
  createdAt: t.string,
  deliveredUpTo: d(t.number, 'Position of the last event delivered'),
  failures: d(t.number, 'Failed tries of the event now being delivered'),
  nextAttemptAt: t.union([t.string, t.null]),
}
export const Webhook = c.object(webhookFields, { disabledReason: t.string }, 'a webhook')
/** A registration's answer: the webhook and, this once, its signing secret. */
export const RegisteredWebhook = t.union([
  c.object({ ...webhookFields, secret: d(t.string, 'Shown only in this answer') }, { disabledReason: t.string }),
  c.object({ id: t.string, secret: t.string }),
])
export const WebhookList = c.object({ webhooks: t.array(Webhook) })
export const WebhookDeleted = c.object({ id: t.string, deleted: t.literal(true) })

const Delivery = c.object(
  {
    deliveryId: t.string,
    eventPosition: t.number,
    eventType: t.string,
    attempt: t.number,
    statusCode: d(t.number, "The receiver's HTTP status; 0 when none came"),
    delivered: t.boolean,
    manual: t.boolean,
    nextAttemptAt: t.union([t.string, t.null]),
    at: t.string,
  },
  { error: t.string },
)
export const Deliveries = c.object({ deliveries: t.array(Delivery), pagination: Pagination })
export const Retried = c.object(
  { deliveryId: t.string, attempt: t.number, statusCode: t.number, delivered: t.boolean },
  { error: t.string },
)

const Since = d(t.string, 'Since when (ISO 8601)')

export const AccessReport = c.object({
  at: d(c.object({ position: t.number, time: t.union([t.string, t.null]) }), 'The moment asked, as the log has it'),
  entry: c.object(
    {
      entryId: t.string,
      title: t.union([t.string, t.null]),
      state: d(t.string, 'absent (not created yet), present or deleted'),
      readable: d(t.boolean, 'Whether a member or a key could read it then'),
    },
    {
      enabled: d(
        t.union([t.boolean, t.null]),
        'Whether searches served it then (null: deleted since, its history cut with its content)',
      ),
      deleted: c.object({ at: t.string, position: t.number }),
      reason: d(t.string, 'Why no one could read it then'),
    },
  ),
  knowledgeBaseEnabled: t.boolean,
  readers: c.object({
    members: t.array(c.object({ userId: t.string, name: t.string, email: t.string, role: t.string, since: Since })),
    apiKeys: t.array(c.object({ keyId: t.string, name: t.string, since: Since })),
    grants: d(
      t.array(
        c.object({
          grantId: t.string,
          clientName: t.string,
          userId: t.string,
          scopes: t.array(t.string),
          since: Since,
        }),
      ),
      'Accesses people had granted MCP clients then (each also reads as its person does, within its scopes)',
    ),
  }),
})

const Revocation = c.object(
  { type: t.string, position: t.number, at: t.string, actor: t.unknown },
  {},
  'an event that took the subject away: EntryDeleted, EntryUpdated (disabled), MemberRemoved, ApiKeyRevoked or ' +
    'OAuthGrantRevoked',
)

export const AccessReceipts = c.object({
  subject: c.object({}, { entryId: t.string, userId: t.string, keyId: t.string }),
  window: c.object({ from: t.string, to: t.string }),
  revocations: t.array(Revocation),
  items: t.array(
    c.object(
      {
        receiptId: d(t.string, 'The receipt, as GET /api/v1/receipts/{id} reads it'),
        kind: d(t.string, 'knowledge or pages'),
        query: t.string,
        mode: t.string,
        actor: d(t.unknown, 'Who was served: a user, an agent (its client and key) or a process'),
        at: t.string,
        position: t.number,
        served: t.array(
          c.object(
            { rank: t.number, version: t.number },
            { entryId: t.string, pageId: t.string, title: t.string },
            'an item the answer served',
          ),
        ),
      },
      { asOf: d(t.number, 'The past moment the answer was asked as of') },
    ),
  ),
  pagination: Pagination,
})

const UndoItem = c.object(
  {
    kind: d(t.string, 'page or entry'),
    id: t.string,
    title: t.string,
    action: d(t.string, 'delete, revert or restore'),
  },
  { toVersion: t.number, diff: t.string, conflict: t.string, status: t.string, reason: t.string },
)
export const Undone = c.object({ dryRun: t.boolean, items: t.array(UndoItem) }, { undoId: t.string })

// The operators' answers: the hash chain's check and the receipt keys.
const VerifiedChain = c.object({ chain: d(t.string, 'A workspace id'), position: t.number, hash: t.string })

export const ChainReport = c.object(
  {
    chains: t.array(VerifiedChain),
    verified: d(t.number, 'Events whose content was checked against its hash'),
    cut: d(t.number, 'Events cut by a deletion: their hashes still link the chain'),
  },
  {
    broken: c.object({ chain: t.string, position: t.number, streamId: t.string, revision: t.number, reason: t.string }),
  },
)

const Key = c.object({
  id: t.string,
  createdAt: t.string,
  signing: d(t.boolean, 'The key new receipts are signed with'),
})
export const ReceiptKeys = c.object({ keys: t.array(Key) })
export const ReceiptKeyAdded = c.object({ id: t.string, keys: t.array(Key) })
export const ReceiptKeyRemoved = c.object({ removed: t.literal(true), id: t.string })
