import { randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { BlobMissing, type BlobStore, hashOf } from '../../adapters/blobs'

/** What every blob store keeps to: put, read, remove, deduplication, a missing blob, concurrent puts. */
export const blobStoreContract = (name: string, open: () => Promise<{ store: BlobStore; close(): Promise<void> }>) => {
  const test = suite<{ store: BlobStore; close(): Promise<void> }>(`blob store contract: ${name}`)
  test.before(async (ctx) => void Object.assign(ctx, await open()))
  test.after(async (ctx) => ctx.close())

  test('put answers the SHA-256 of the bytes; read gives them back exactly', async ({ store }) => {
    const bytes = randomBytes(70_000)
    const hash = await store.put(bytes)
    assert.is(hash, hashOf(bytes))
    assert.ok((await store.read(hash)).equals(bytes))
    const empty = new Uint8Array(0)
    assert.is((await store.read(await store.put(empty))).length, 0)
  })

  test('the same bytes twice are one blob; removing it removes it for both', async ({ store }) => {
    const bytes = randomBytes(1000)
    const [a, b] = [await store.put(bytes), await store.put(Buffer.from(bytes))]
    assert.is(a, b)
    await store.remove(a)
    try {
      await store.read(a)
      assert.unreachable('read after remove')
    } catch (error) {
      assert.instance(error, BlobMissing)
    }
  })

  test('a missing blob: read throws BlobMissing, remove is no error, a name that is no hash is refused', async ({
    store,
  }) => {
    const missing = hashOf(randomBytes(16))
    try {
      await store.read(missing)
      assert.unreachable('read of a missing blob')
    } catch (error) {
      assert.instance(error, BlobMissing)
    }
    await store.remove(missing)
    for (const bad of ['../../etc/passwd', 'report.pdf', `${missing}/x`]) {
      try {
        await store.read(bad)
        assert.unreachable(bad)
      } catch (error) {
        assert.match((error as Error).message, /not a blob hash/)
      }
    }
  })

  test('concurrent puts of the same bytes: all answer the hash, one blob, intact', async ({ store }) => {
    const bytes = randomBytes(300_000)
    const hashes = await Promise.all(Array.from({ length: 8 }, () => store.put(bytes)))
    assert.equal(new Set(hashes), new Set([hashOf(bytes)]))
    assert.ok((await store.read(hashes[0])).equals(bytes))
    const listed = await store.writtenBefore(new Date(Date.now() + 60_000))
    assert.is(listed.hashes.filter((h) => h === hashes[0]).length, 1)
  })

  test('written before a time: listed; written again since: kept by removeIfWrittenBefore', async ({ store }) => {
    const old = await store.put(randomBytes(100))
    const again = await store.put(randomBytes(100))
    // Object stores keep whole seconds: the cut is well after both writes.
    await new Promise((r) => setTimeout(r, store.kind === 's3' ? 2100 : 50))
    const cut = new Date()
    await new Promise((r) => setTimeout(r, store.kind === 's3' ? 1100 : 20))
    await store.put(await store.read(again))
    const { hashes } = await store.writtenBefore(cut)
    assert.ok(hashes.includes(old))
    assert.not.ok(hashes.includes(again), 'written again after the cut')
    assert.is(await store.removeIfWrittenBefore(again, cut), false)
    assert.is(await store.removeIfWrittenBefore(old, cut), true)
    assert.is(await store.removeIfWrittenBefore(old, cut), false, 'gone already')
    assert.ok((await store.read(again)).length === 100)
  })

  test('past 1,000 blobs: every one is listed (an object store answers in pages of 1,000)', async ({ store }) => {
    const before = new Set((await store.writtenBefore(new Date(Date.now() + 60_000))).hashes)
    const written: string[] = []
    for (let i = 0; i < 1005; i += 50)
      written.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => store.put(Buffer.from(`n${i + j}`))))))
    const listed = (await store.writtenBefore(new Date(Date.now() + 60_000))).hashes
    assert.is(listed.length, new Set(listed).size, 'each listed once')
    const fresh = listed.filter((h) => !before.has(h))
    assert.equal(new Set(fresh), new Set(written))
    for (let i = 0; i < written.length; i += 50) await Promise.all(written.slice(i, i + 50).map((h) => store.remove(h)))
  })

  return test
}
