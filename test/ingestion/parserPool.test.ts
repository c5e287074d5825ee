import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type ChunkedContent, chunkSections } from '../../ingestion/chunker'
import { ParseError } from '../../ingestion/parsers'
import { ParserPool } from '../../ingestion/parserPool'

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

test(
  'a parse past its deadline is killed with its worker and fails with the reason; a new worker takes the ' + 'next job',
  async () => {
    const pool = new ParserPool({ timeoutMs: 20_000, memoryMb: 256, workers: 1 })
    assert.is((await pool.parse({ mimeType: 'text/plain', bytes: Buffer.from('warm') })).text, 'warm')
    const huge = Buffer.from(
      `<!doctype html><html><body>${'<div><p>sibling text</p></div>'.repeat(300_000)}</body></html>`,
    )
    const strict = new ParserPool({ timeoutMs: 1500, memoryMb: 1024, workers: 1 })
    // Booting may itself overrun 1.5 s on a busy machine; the next job must then get a new worker.
    await strict.parse({ mimeType: 'text/plain', bytes: Buffer.from('boot') }).catch(() => undefined)
    const reason = await failure(strict.parse({ mimeType: 'text/html', bytes: huge }))
    assert.match(reason, 'parsing took longer than 1500 ms', reason)
    await strict.close()
    assert.is(
      (await pool.parse({ mimeType: 'text/markdown', bytes: Buffer.from('# still fine') })).text,
      '# still fine',
    )
    await pool.close()
  },
)

test('a parser past its heap limit is killed and the job fails saying so', async () => {
  const pool = new ParserPool({ timeoutMs: 60_000, memoryMb: 96, workers: 1 })
  const huge = Buffer.from(
    `<!doctype html><html><body>${'<div><p>sibling text</p></div>'.repeat(400_000)}</body></html>`,
  )
  assert.match(await failure(pool.parse({ mimeType: 'text/html', bytes: huge })), 'ran out of memory')
  await pool.close()
})

test(
  "a request's chunking runs on a worker kept for it beside the parses, a task's waits its turn; both give " +
    'what chunkSections gives',
  async () => {
    const pool = new ParserPool({ timeoutMs: 60_000, memoryMb: 512, workers: 1 })
    const options = { chunkSizeTokens: 100, overlapTokens: 20, preserveSentences: true }
    const sections = [
      { text: 'The river carries silt to the delta. '.repeat(40) },
      { text: 'Tides shape the marsh. '.repeat(30), pageUrl: 'https://example.com/b' },
    ]
    const html = (n: number) => ({
      mimeType: 'text/html',
      bytes: Buffer.from(`<!doctype html><html><body>${'<p>a paragraph of text</p>'.repeat(n)}</body></html>`),
    })
    await pool.parse({ mimeType: 'text/plain', bytes: Buffer.from('warm') })
    const finished: string[] = []
    // One background job at a time (workers: 1): the second parse waits for the first (seconds
    // long), and so does a task's chunking, though ahead of that parse; a request's chunking gets
    // the worker kept for it and is done first.
    const jobs = [
      pool.parse(html(20_000)).then(() => finished.push('parse 1')),
      pool.parse(html(2_000)).then(() => finished.push('parse 2')),
      pool.chunk(sections, options, { background: true }).then((chunked) => (finished.push('task chunk'), chunked)),
      pool.chunk(sections, options).then((chunked) => (finished.push('request chunk'), chunked)),
    ]
    const results = await Promise.all(jobs)
    assert.equal(finished, ['request chunk', 'parse 1', 'task chunk', 'parse 2'])
    const chunked = results[3]
    assert.equal(results[2], chunked)
    assert.equal(chunked, chunkSections(sections, options))
    assert.ok((chunked as ChunkedContent).chunks.some((c) => c.pageUrl === 'https://example.com/b'))
    await pool.close()
  },
)

test(
  'a warmed pool has its worker running before the first job, which takes it; a closed pool does not start ' + 'one',
  async () => {
    const pool = new ParserPool({ timeoutMs: 60_000, memoryMb: 256, workers: 1 })
    assert.is(pool.running, 0)
    await pool.warm()
    assert.is(pool.running, 1)
    await pool.warm()
    assert.is(pool.running, 1)
    const chunked = await pool.chunk([{ text: 'One sentence. Another one.' }], {
      chunkSizeTokens: 100,
      overlapTokens: 0,
      preserveSentences: true,
    })
    assert.is(chunked.chunks.length, 1)
    assert.is(pool.running, 1)
    await pool.close()
    await pool.warm()
    assert.is(pool.running, 0)
  },
)

test.run()
