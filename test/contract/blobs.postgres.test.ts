import { suite } from 'uvu'
import { PostgresBlobStore } from '../../adapters/blobs/postgres'
import { serverUrl, testPostgres } from '../../testkit/db'
import { blobStoreContract } from './blobs'

if (!serverUrl) {
  const skipped = suite('blob store on the Postgres server (TEST_DATABASE_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.run()
} else
  blobStoreContract('a table of the Postgres server', async () => {
    const db = await testPostgres()
    return { store: await PostgresBlobStore.open(db.pool), close: () => db.close() }
  }).run()
