import * as E from 'fp-ts/Either'
import * as answers from './answers'
import * as t from 'io-ts'
import { undoActor } from '../../commands/log/undo'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { knowledgeDeps } from '../knowledge'
import { humanAuthor } from '../pages'

export const undoRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/undo',
    response: answers.Undone,
    tag: 'audit',
    auth: 'bearer',
    summary:
      'Undo everything one actor (a user id, an API key id or an agent client) wrote between from and to, as new ' +
      'events: pages reverted or deleted, entries deleted or restored. dryRun answers the plan with diffs; a later ' +
      'write by someone else is a conflict, skipped unless force (owners and admins)',
    managers: 'undo is for workspace owners and admins',
    body: c.object(
      { actor: c.string(1, 300), from: c.isoTime, to: c.isoTime },
      { dryRun: t.boolean, force: t.boolean },
    ),
    uses: ['db', 'store', 'embedder', 'parsers', 'blobs'],
    handler: async ({ identity, body, command }, deps) => {
      const member = memberOf(identity)
      const done = await undoActor(
        { ...knowledgeDeps(deps), files: { blobs: deps.blobs, db: deps.db.pool } },
        command,
        member.workspaceId,
        humanAuthor(identity),
        { actor: body.actor, from: body.from, to: body.to, dryRun: body.dryRun ?? false, force: body.force ?? false },
      )
      return E.map(({ position, ...data }: { position: number }) => ({ data, position }))(done)
    },
  }),
]
