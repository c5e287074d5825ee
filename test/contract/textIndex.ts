// The contract every TextIndex adapter passes (run by *.test.ts files per engine).
import { randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Database } from '../../adapters/db'
import type { Scope, TextIndex } from '../../adapters/textIndex/port'

interface Row {
  id: string
  key: string
  workspace: string
  enabled: boolean
  tags: string[]
  body: string
}

const rows: Row[] = [
  { id: 'a1', key: 'a', workspace: 'w1', enabled: true, tags: ['ops'], body: 'The wombat digs a burrow. Wombat!' },
  { id: 'a2', key: 'a', workspace: 'w1', enabled: true, tags: ['ops'], body: 'Burrows keep the wombat cool.' },
  { id: 'b1', key: 'b', workspace: 'w1', enabled: true, tags: [], body: 'A koala sleeps in a tree.' },
  { id: 'c1', key: 'c', workspace: 'w1', enabled: false, tags: ['ops'], body: 'A disabled wombat note.' },
  { id: 'd1', key: 'd', workspace: 'w2', enabled: true, tags: ['ops'], body: "Another workspace's wombat." },
]

/**
 * The rows holding the query come first, in any order among them (engines rank differently); an
 * engine may list rows of the scope that do not hold it after them (the ranking scores those 0).
 */
const holdingFirst = (found: Array<{ id: string }>, ids: string[]) =>
  assert.equal(
    found
      .slice(0, ids.length)
      .map((r) => r.id)
      .sort(),
    [...ids].sort(),
  )

export const textIndexContract = (name: string, open: () => Promise<{ db: Database; index: TextIndex }>) => {
  const test = suite<{ db: Database; index: TextIndex; table: string }>(`text index contract: ${name}`)
  const write = async ({ db, index, table }: { db: Database; index: TextIndex; table: string }, position: number) => {
    for (const key of new Set(rows.map((r) => r.key)))
      await index.mirror?.(db.pool, { table, key: 'key', value: key, position })
    await index.refresh?.([table])
  }
  const find = ({ db, index, table }: { db: Database; index: TextIndex; table: string }, query: string, scope: Scope) =>
    index.candidates(db.pool, { table, column: 'body', key: 'key', query, scope, limit: 10 })

  test.before(async (ctx) => {
    Object.assign(ctx, await open())
    // A fresh table (and, for an outside index, a fresh index) per run.
    ctx.table = `t_${randomBytes(4).toString('hex')}`
    await ctx.db.pool.query(
      `CREATE TABLE ${ctx.table} (id text PRIMARY KEY, key text NOT NULL, workspace_id text NOT NULL,
        is_enabled boolean NOT NULL, tags text[] NOT NULL, body text NOT NULL);
       ${ctx.index.indexDdl(ctx.table, 'body')}`,
    )
    for (const r of rows)
      await ctx.db.pool.query(`INSERT INTO ${ctx.table} VALUES ($1, $2, $3, $4, $5, $6)`, [
        r.id,
        r.key,
        r.workspace,
        r.enabled,
        r.tags,
        r.body,
      ])
    // An index outside the database is built from the table's rows, as at a service's start.
    await ctx.index.open?.(ctx.db, [{ table: ctx.table, key: 'key' }])
    await write(ctx, 10)
  })
  test.after(async ({ db, index }) => {
    await index.close?.()
    await db.close()
  })

  test('rows in scope holding the query come first; other workspaces and disabled rows never', async (ctx) => {
    const found = await find(ctx, 'wombat', [['workspace_id = ?', 'w1'], 'is_enabled'])
    holdingFirst(found, ['a1', 'a2'])
    assert.equal(
      found.slice(0, 2).map((r) => r.key),
      ['a', 'a'],
    )
    assert.not.ok(found.some((r) => ['c1', 'd1'].includes(r.id)))
  })

  test('an array filter and a condition only SQL can express both apply', async (ctx) => {
    const tagged = await find(ctx, 'wombat koala', [
      ['workspace_id = ?', 'w1'],
      ['tags @> ARRAY[?]::text[]', 'ops'],
    ])
    assert.equal(tagged.map((r) => r.id).sort(), ['a1', 'a2', 'c1'])
    const sub = await find(ctx, 'wombat koala', [
      ['workspace_id = ?', 'w1'],
      ['key IN (SELECT key FROM (VALUES (?)) AS v(key))', 'b'],
    ])
    assert.equal(
      sub.map((r) => r.id),
      ['b1'],
    )
  })

  test('a query with no searchable words finds nothing; the limit is kept', async (ctx) => {
    assert.equal(await find(ctx, ' ?! ', [['workspace_id = ?', 'w1']]), [])
    const one = await ctx.index.candidates(ctx.db.pool, {
      table: ctx.table,
      column: 'body',
      key: 'key',
      query: 'wombat',
      scope: [['workspace_id = ?', 'w1']],
      limit: 1,
    })
    assert.is(one.length, 1)
  })

  test('a row deleted or changed is found as it now is; an older write never comes back', async (ctx) => {
    await ctx.db.pool.query(`DELETE FROM ${ctx.table} WHERE id = 'a2'`)
    await ctx.db.pool.query(`UPDATE ${ctx.table} SET body = 'A koala naps.' WHERE id = 'a1'`)
    await write(ctx, 20)
    const wombat = await find(ctx, 'wombat', [['workspace_id = ?', 'w1']])
    holdingFirst(wombat, ['c1'])
    assert.not.ok(wombat.some((r) => r.id === 'a2'))
    // A replay of an earlier position (the rows as they were then) does not regress the index.
    await ctx.db.pool.query(`UPDATE ${ctx.table} SET body = 'Wombat again.' WHERE id = 'a1'`)
    await write(ctx, 15)
    await ctx.db.pool.query(`UPDATE ${ctx.table} SET body = 'A koala naps.' WHERE id = 'a1'`)
    holdingFirst(await find(ctx, 'koala', [['workspace_id = ?', 'w1']]), ['a1', 'b1'])
  })

  test('more rows hold the query than one page of candidates: the limit is filled, each row once', async (ctx) => {
    for (let i = 0; i < 40; i++)
      await ctx.db.pool.query(`INSERT INTO ${ctx.table} VALUES ($1, $2, 'w3', true, '{}', $3)`, [
        `p${i}`,
        `k${i % 20}`,
        `Numbat sighting number ${i}.`,
      ])
    for (let i = 0; i < 20; i++)
      await ctx.index.mirror?.(ctx.db.pool, { table: ctx.table, key: 'key', value: `k${i}`, position: 30 })
    await ctx.index.refresh?.([ctx.table])
    const found = await ctx.index.candidates(ctx.db.pool, {
      table: ctx.table,
      column: 'body',
      key: 'key',
      query: 'numbat',
      // A condition only SQL can check: an outside index reads on, page after page.
      scope: [
        ['workspace_id = ?', 'w3'],
        ['(key IN (SELECT key FROM (VALUES (?)) AS v(key)) OR true)', 'k1'],
      ],
      limit: 35,
    })
    assert.is(found.length, 35)
    assert.is(new Set(found.map((r) => r.id)).size, 35)
    assert.ok(found.every((r) => r.id.startsWith('p')))
  })

  test('titles and tags that look like dates or numbers stay text; later rows are indexed as well', async (ctx) => {
    const rows: Array<[string, string[], string]> = [
      ['x1', ['2024-06-01'], '2024-06-01 release notes'],
      ['x2', ['42'], '1999 was a year of echidnas'],
      ['x3', ['ops'], 'Echidna care, plainly.'],
    ]
    for (const [id, tags, body] of rows)
      await ctx.db.pool.query(`INSERT INTO ${ctx.table} VALUES ($1, $1, 'w4', true, $2, $3)`, [id, tags, body])
    for (const [id] of rows)
      await ctx.index.mirror?.(ctx.db.pool, { table: ctx.table, key: 'key', value: id, position: 40 })
    await ctx.index.refresh?.([ctx.table])
    holdingFirst(await find(ctx, 'echidna', [['workspace_id = ?', 'w4']]), ['x2', 'x3'])
    holdingFirst(
      await find(ctx, 'release', [
        ['workspace_id = ?', 'w4'],
        ['tags @> ARRAY[?]::text[]', '2024-06-01'],
      ]),
      ['x1'],
    )
  })

  return test
}
