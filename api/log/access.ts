import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import * as answers from './answers'
import { type Subject, revocations, servedReceipts } from '../../queries/log/access'
import { agentKeyKind, everMember, readersAt } from '../../queries/accounts'
import { type AsOf, resolveAsOf } from '../../queries/asOf'
import { type EntryStanding, entryStandingAt, knowledgeBaseEnabledAt } from '../../queries/knowledge'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'

const MANAGERS = 'access reports are for owners and admins'

/** Why no one could read the entry at the moment, or undefined where it could be read. */
const unreadable = (entry: EntryStanding, knowledgeBaseEnabled: boolean) =>
  entry.state === 'absent'
    ? 'the entry was not created yet'
    : entry.state === 'deleted'
      ? 'the entry had been deleted'
      : !knowledgeBaseEnabled
        ? "the workspace's knowledge base was disabled"
        : undefined

const standingView = (entry: EntryStanding) =>
  entry.state === 'present' ? { enabled: entry.enabled } : entry.state === 'deleted' ? { deleted: entry.deleted } : {}

/** The one subject a forensic read names: an entry, a member, or an API key. */
const subjectOf = (q: { entryId?: string; userId?: string; keyId?: string }): Subject | undefined => {
  const named = [q.entryId, q.userId, q.keyId].filter((x) => x !== undefined)
  if (named.length !== 1) return undefined
  return q.entryId ? { entryId: q.entryId } : q.userId ? { userId: q.userId } : { keyId: q.keyId! }
}

/**
 * Whether the subject belongs to the workspace (ever: a deleted entry, a removed member, a revoked key do). A key is
 * an API key or an OAuth grant: agents' events name either as their key.
 */
const known = async (db: Parameters<typeof everMember>[0], workspaceId: string, s: Subject) =>
  'entryId' in s
    ? (await entryStandingAt(db, workspaceId, s.entryId, Number.MAX_SAFE_INTEGER)) !== undefined
    : 'userId' in s
      ? everMember(db, workspaceId, s.userId)
      : (await agentKeyKind(db, workspaceId, s.keyId)) !== undefined

export const accessRoutes: AnyRoute[] = [
  route({
    method: 'get',
    path: '/api/v1/reports/access',
    response: answers.AccessReport,
    tag: 'search',
    auth: 'bearer',
    summary:
      'Who could read an entry at a moment: whether it stood then (and was enabled), whether the knowledge base ' +
      'was, and each member (with the role held) and API key of the workspace then (owners and admins)',
    managers: MANAGERS,
    query: t.intersection([t.type({ entryId: c.id }), t.partial({ at: c.asOf })]),
    uses: ['db', 'store', 'runner', 'config'],
    handler: async ({ identity, query }, deps) => {
      const { workspaceId } = memberOf(identity)
      const moment = await resolveAsOf(deps, workspaceId, query.at ?? { time: new Date() })
      if (E.isLeft(moment)) return moment
      const at: AsOf = moment.right ?? { position: 0, time: null }
      const db = deps.db.pool
      const entry = await entryStandingAt(db, workspaceId, query.entryId, at.position)
      if (!entry) return fail('NOT_FOUND', 'entry not found')
      const knowledgeBaseEnabled = await knowledgeBaseEnabledAt(db, workspaceId, at.position)
      const reason = unreadable(entry, knowledgeBaseEnabled)
      const readers = reason ? { members: [], apiKeys: [], grants: [] } : await readersAt(db, workspaceId, at.position)
      return E.right({
        data: {
          at,
          entry: {
            entryId: query.entryId,
            title: entry.title,
            state: entry.state,
            readable: !reason,
            ...standingView(entry),
            ...(reason ? { reason } : {}),
          },
          knowledgeBaseEnabled,
          readers,
        },
      })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/reports/access/receipts',
    response: answers.AccessReceipts,
    tag: 'search',
    auth: 'bearer',
    summary:
      'Every receipt in a window that served an entry (and to whom), or that a member or an API key was served ' +
      '(and what), with the events that took the subject away: forensics after a deletion, a disabling, a ' +
      "member's removal or a key's revocation; oldest first (owners and admins)",
    managers: MANAGERS,
    query: t.partial({
      entryId: c.id,
      userId: c.id,
      // An API key's id, or an OAuth grant's (what an agent's events name as its key).
      keyId: c.id,
      from: c.isoTime,
      to: c.isoTime,
      page: c.intFromString(1, 1_000_000),
      limit: c.intFromString(1, 100),
    }),
    uses: ['db'],
    handler: async ({ identity, query }, { db }) => {
      const { workspaceId } = memberOf(identity)
      const subject = subjectOf(query)
      if (!subject)
        return fail('VALIDATION_ERROR', 'name one subject: entryId, userId or keyId', [
          'entryId, userId, keyId: exactly one of them',
        ])
      const window = { from: query.from ?? new Date(0), to: query.to ?? new Date() }
      if (window.from > window.to)
        return fail('VALIDATION_ERROR', 'from must not be later than to', ['from: a time at or before to'])
      if (!(await known(db.pool, workspaceId, subject)))
        return fail('NOT_FOUND', `${Object.keys(subject)[0].replace(/Id$/, '')} not found`)
      const served = await servedReceipts(db.pool, workspaceId, subject, window, query.page ?? 1, query.limit ?? 20)
      return E.right({
        data: {
          subject,
          window: { from: window.from.toISOString(), to: window.to.toISOString() },
          revocations: await revocations(db.pool, workspaceId, subject),
          ...served,
        },
      })
    },
  }),
]
