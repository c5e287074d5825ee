import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ParseError } from '../../workers/parsers'
import { ParserPool } from '../../workers/parserPool'

const test = suite('parser pool: limits on time and memory')

const failure = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (error) {
    assert.instance(error, ParseError)
    return (error as Error).message
  }
  throw new Error('the parse should have failed')
}

test('a parse past its deadline is killed with its worker and fails with the reason; a new worker takes the next job', async () => {
  const pool = new ParserPool({ timeoutMs: 20_000, memoryMb: 256, workers: 1 })
  assert.is((await pool.parse({ mimeType: 'text/plain', bytes: Buffer.from('warm') })).text, 'warm')
  const huge = Buffer.from(`<!doctype html><html><body>${'<div><p>sibling text</p></div>'.repeat(300_000)}</body></html>`)
  const strict = new ParserPool({ timeoutMs: 1500, memoryMb: 1024, workers: 1 })
  // Booting may itself overrun 1.5 s on a busy machine; the next job must then get a new worker.
  await strict.parse({ mimeType: 'text/plain', bytes: Buffer.from('boot') }).catch(() => undefined)
  const reason = await failure(strict.parse({ mimeType: 'text/html', bytes: huge }))
  assert.match(reason, 'parsing took longer than 1500 ms', reason)
  await strict.close()
  assert.is((await pool.parse({ mimeType: 'text/markdown', bytes: Buffer.from('# still fine') })).text, '# still fine')
  await pool.close()
})

test('a parser past its heap limit is killed and the job fails saying so', async () => {
  const pool = new ParserPool({ timeoutMs: 60_000, memoryMb: 96, workers: 1 })
  const huge = Buffer.from(`<!doctype html><html><body>${'<div><p>sibling text</p></div>'.repeat(400_000)}</body></html>`)
  assert.match(await failure(pool.parse({ mimeType: 'text/html', bytes: huge })), 'ran out of memory')
  await pool.close()
})

test.run()
