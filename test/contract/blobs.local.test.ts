import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { LocalBlobStore } from '../../adapters/blobs/local'
import { PostgresBlobStore } from '../../adapters/blobs/postgres'
import { testPglite } from '../../testkit/db'
import { blobStoreContract } from './blobs'

blobStoreContract('files under a directory', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-blobs-'))
  return { store: new LocalBlobStore(dir), close: async () => fs.rmSync(dir, { recursive: true, force: true }) }
}).run()

// The table store on PGlite (the same SQL as on a server; the server suite runs it there too).
blobStoreContract('a table of the database (PGlite)', async () => {
  const db = await testPglite()
  return { store: await PostgresBlobStore.open(db.pool), close: () => db.close() }
}).run()
