import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { apiKey } from '../../domain/accounts/apiKey'
import { user } from '../../domain/accounts/user'
import { workspace } from '../../domain/accounts/workspace'
import { folder } from '../../domain/knowledge/folder'
import { kbConfig } from '../../domain/knowledge/kbConfig'
import { embeddings } from '../../domain/search/embeddings'
import { pageSearch, search } from '../../domain/search/search'
import type { Decider } from '../../domain/shared'
import { given } from '../../testkit/spec'
import {
  createWorkspace,
  created,
  deleteFolder,
  change,
  issue,
  issued,
  pageServed,
  rebuild,
  register,
  revoke,
  served,
  update,
} from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: codecs')

test('every event decided passes its decider codec', () => {
  const decided = <C, Ev, S>(d: Decider<C, Ev, S>, events: Ev[], command: C) => {
    const out = given(d, events).when(command).decided()
    assert.ok(out.length > 0)
    for (const e of out) assert.ok(d.events.is(e), JSON.stringify(e))
  }
  decided(folder, [], { type: 'CreateFolder', data: created.data })
  decided(folder, [created], update({ name: 'Playbooks' }))
  decided(folder, [created], deleteFolder)
  decided(kbConfig, [], change({ ingestion: { autoEmbed: false }, search: { minScore: 0.5 } }))
  decided(apiKey, [], issue)
  decided(apiKey, [issued], revoke)
  decided(user, [], register)
  decided(workspace, [], createWorkspace)
  decided(search, [], { type: 'RecordSearch', data: served })
  decided(pageSearch, [], { type: 'RecordPageSearch', data: pageServed })
  decided(embeddings, [], rebuild)
})

test.run()
