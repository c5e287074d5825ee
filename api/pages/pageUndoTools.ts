import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { type PageWriteOutcome, deleteAsAgent, revertAsAgent } from '../../commands/pages/writes'
import type { Author } from '../../domain/pages/page'
import { fail } from '../../domain/shared'
import * as c from '../codecs'
import { PageWritten } from './pageTools'
import { VersionNumber } from './shapes'
import { type ToolContext, defineTool } from '../tools/tool'
import { pageDeps } from '../../commands/pages/pages'

const d = c.described

/** The agent of a tool call, as the author of what it writes. */
const agentOf = ({ client, keyId }: ToolContext): Extract<Author, { kind: 'agent' }> => ({
  kind: 'agent',
  client,
  keyId,
})

const PageRevertArguments = c.object({ pageId: c.id, version: VersionNumber }, { expectedVersion: VersionNumber })

/**
 * An agent's undo of its own writes: the page's content of an earlier version, written as a new version (or
 * proposed, in a collection held for review).
 */
const pageRevert = defineTool({
  name: 'native:page_revert',
  description:
    'Undo your own writes to a brain page: writes the content of an earlier version back as a new version (in a ' +
    'collection held for review, proposes it). Refused if a later version is not yours; receipts name this call.',
  permission: 'write:tools',
  // Not idempotent: in a collection held for review, each call proposes anew.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  arguments: PageRevertArguments,
  argumentNotes: {
    pageId: 'The page id',
    version: 'The version whose content to restore',
    expectedVersion: 'The version you last saw: a newer one fails with VERSION_CONFLICT',
  },
  output: PageWritten,
  run: async (deps, ctx, args) => {
    const author = agentOf(ctx)
    const reverted = await revertAsAgent(
      pageDeps(deps),
      { ...ctx.command, actor: author },
      {
        workspaceId: ctx.workspaceId,
        pageId: args.pageId,
        version: args.version,
        expectedVersion: args.expectedVersion,
        author,
      },
    )
    return E.map(({ position, ...data }: PageWriteOutcome & { position: number }) => ({ data, position }))(reverted)
  },
})

const PageDeleteArguments = c.object({ pageId: c.id }, {})

const Deleted = c.object({
  pageId: d(t.string, 'The page id'),
  deleted: d(t.literal(true), 'The page is gone (its title is free again)'),
  receipt: d(t.string, 'What happened, in a sentence to quote to the user'),
})

/** An agent taking back a page it made, while every version of it is its own. */
const pageDelete = defineTool({
  name: 'native:page_delete',
  description:
    'Take back a brain page you created: deletes it while every version is your own. Refused once anyone else ' +
    'has written to it (ask a person then); the receipt of a create names this call.',
  permission: 'write:tools',
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  arguments: PageDeleteArguments,
  argumentNotes: { pageId: 'The page id, as the receipt of its creation gave it' },
  output: Deleted,
  run: async (deps, ctx, args) => {
    const deleted = await deleteAsAgent(
      deps.store,
      { ...ctx.command, actor: agentOf(ctx) },
      ctx.workspaceId,
      args.pageId,
      ctx.keyId,
    )
    if (E.isLeft(deleted)) return deleted.left.code === 'NOT_FOUND' ? fail('NOT_FOUND', 'page not found') : deleted
    return E.right({
      data: { pageId: args.pageId, deleted: true as const, receipt: `Deleted page ${args.pageId}.` },
      position: deleted.right.position,
    })
  },
})

export const pageUndoTools = [pageRevert, pageDelete]
