import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Actor } from '../../adapters/eventstore/port'
import { receiptsProjector } from '../../projections/search'
import { projectorSpec } from '../../testkit/projectorSpec'

const test = suite('projector spec: answer receipts, and who each was served to')
const spec = projectorSpec(receiptsProjector)

const served = (searchId: string, actor: Actor, entryIds: string[]) => ({
  type: 'SearchServed',
  data: {
    searchId,
    workspaceId: 'ws-1',
    mode: 'text',
    resultCount: entryIds.length,
    entryIds,
    query: 'quokkas',
    position: 7,
    receipt: `token-${searchId}`,
    served: entryIds.map((entryId, i) => ({ entryId, version: 1, chunkIndex: i, sha256: `sha-${entryId}` })),
  },
  metadata: { actor, workspaceId: 'ws-1' },
})

test("a search's receipt keeps who was served (a person, or an agent with its key) and each result in rank order", () =>
  spec
    .given([
      served('s-1', { kind: 'human', userId: 'user-2' }, ['e-1', 'e-2']),
      served('s-2', { kind: 'agent', client: 'bot', keyId: 'key-1' }, ['e-2']),
      // A search recorded before receipts has no query: no receipt.
      {
        type: 'SearchServed',
        data: { searchId: 's-0', workspaceId: 'ws-1', mode: 'text', resultCount: 0, entryIds: [] },
      },
    ])
    .then((rows) => {
      assert.equal(
        rows.kb_receipts.map((r) => [r.id, r.actor_id, r.token]),
        [
          ['s-1', 'user-2', 'token-s-1'],
          ['s-2', 'bot', 'token-s-2'],
        ],
      )
      assert.equal(rows.kb_receipts[1].actor, { kind: 'agent', client: 'bot', keyId: 'key-1' })
      assert.equal(
        rows.kb_receipt_results.map((r) => [r.receipt_id, r.rank, r.item_id, r.sha256]),
        [
          ['s-1', 1, 'e-1', 'sha-e-1'],
          ['s-1', 2, 'e-2', 'sha-e-2'],
          ['s-2', 1, 'e-2', 'sha-e-2'],
        ],
      )
    }))

test.run()
