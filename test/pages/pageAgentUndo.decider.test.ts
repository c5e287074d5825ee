import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type PageEvent, page } from '../../domain/pages/page'
import { given } from '../../testkit/spec'
import { PAGE, WS, agent, alice, created, deleteCmd, pageDeleted, revertCmd, v1, v2 } from '../helpers/fixtures/pages'

const test = suite("page, proposal and collection deciders: an agent's undo")

// An agent's undo: only over versions it wrote itself.

// Agents by the API key they wrote with (its client name is theirs to choose, so it decides nothing).
const byAgent = (version: number, keyId: string, extra: object = {}): PageEvent => ({
  type: 'PageVersionWritten',
  data: {
    pageId: PAGE,
    version,
    mode: version === 1 ? 'create' : 'append',
    content: `v${version}`,
    author: { kind: 'agent', client: 'claude', keyId },
    added: 1,
    removed: 0,
    ...extra,
  },
})
const agentPage = [created, byAgent(1, 'key-1'), byAgent(2, 'key-1')]

test("page: an agent's delete of a page whose every version it wrote records PageDeleted", () => {
  given(page, agentPage)
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .then([pageDeleted])
})

test("page: an agent's delete is FORBIDDEN once a person, another agent or an approval wrote a version", () => {
  given(page, [created, byAgent(1, 'key-1'), v2])
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
  given(page, agentPage)
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-2' })
    .thenFails('FORBIDDEN')
  const approved = [created, byAgent(1, 'key-1', { proposalId: 'prop-1', approvedBy: alice })]
  given(page, approved)
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
})

test("page: an agent's revert passes over its own later versions only, and names the first that is not", () => {
  const mixed = [created, v1, byAgent(2, 'key-1'), byAgent(3, 'key-2')]
  const own = given(page, [created, v1, byAgent(2, 'key-1')])
    .when({
      ...revertCmd(WS, 1),
      ownWritesOf: 'key-1',
    })
    .decided()
  assert.is(own[0]?.type, 'PageVersionWritten')
  const refused = given(page, mixed).when({ ...revertCmd(WS, 1), ownWritesOf: 'key-1' }).refusal
  assert.is(refused?.code, 'FORBIDDEN')
  assert.match(refused?.message ?? '', /version 3 of this page was not written with your API key/)
  // A revert to the version right before the other agent's is still someone else's to undo.
  given(page, mixed)
    .when({ ...revertCmd(WS, 2), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
  // A version an agent wrote before keys were recorded is no key's to undo.
  const unkeyed: PageEvent = {
    type: 'PageVersionWritten',
    data: { pageId: PAGE, version: 1, mode: 'create', content: 'x', author: agent, added: 1, removed: 0 },
  }
  given(page, [created, unkeyed])
    .when({ ...deleteCmd(WS), ownWritesOf: 'key-1' })
    .thenFails('FORBIDDEN')
  // A person's revert is not limited to their own versions.
  assert.ok('events' in given(page, mixed).when(revertCmd(WS, 1)).outcome)
})

test.run()
