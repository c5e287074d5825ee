// `kb import <file>.jsonl`: one entry a line, `{ title, content }` or `{ url }`, with optional
// `metadata`, `externalId`, `folder` (a path: `a/b`) and, from another store, `embedding`
// (`{ model, vector }`). A line that cannot be an entry is refused with its reason; the others go in.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { type Item, type Source, folderPath } from './importItem'

/** Other names a store may give a vector: only `embedding: { model, vector }` is taken. */
const VECTOR_FIELDS = ['vector', 'vectors', 'embeddings']
const STRING_FIELDS = ['title', 'content', 'url', 'externalId', 'folder']

/** A line as an item: the entry it asks for, or why it is refused. */
export const lineItem = (label: string, text: string): Item => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { label, refused: `not JSON: ${(error as Error).message}` }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { label, refused: 'not a JSON object' }
  const o = value as Record<string, unknown>
  const vector = VECTOR_FIELDS.find((k) => k in o)
  if (vector)
    return {
      label,
      refused:
        `carries "${vector}": a vector goes in "embedding": { "model", "vector" } (the service's model, for a text ` +
        'of one passage), or leave it out for the service to embed the content',
    }
  const given = o.embedding as { model?: unknown; vector?: unknown } | undefined
  if (
    given !== undefined &&
    (typeof given !== 'object' ||
      given === null ||
      typeof given.model !== 'string' ||
      !Array.isArray(given.vector) ||
      !given.vector.every((x) => typeof x === 'number'))
  )
    return { label, refused: '"embedding" must be { "model": a string, "vector": an array of numbers }' }
  if (given && o.url !== undefined) return { label, refused: '"embedding" goes with "content", not "url"' }
  const wrong = STRING_FIELDS.find((k) => o[k] !== undefined && typeof o[k] !== 'string')
  if (wrong) return { label, refused: `"${wrong}" must be a string` }
  if (o.metadata !== undefined && (typeof o.metadata !== 'object' || o.metadata === null || Array.isArray(o.metadata)))
    return { label, refused: '"metadata" must be an object' }
  const [title, content, url, externalId, folder] = STRING_FIELDS.map((k) => (o[k] as string | undefined)?.trim())
  if (content && url) return { label, refused: 'holds both "content" and "url": one or the other' }
  if (!url && !(title && content)) return { label, refused: 'needs "title" and "content", or "url"' }
  // Without an externalId, the entry is known again by what it holds.
  const id =
    externalId ||
    `sha256:${createHash('sha256')
      .update(JSON.stringify([title, content, url]))
      .digest('hex')}`
  return {
    label,
    ref: { key: 'externalId', value: id },
    folder: folderPath(folder),
    entry: {
      // A URL's entry is titled by its URL unless the line names it.
      title: title || (url as string),
      ...(url ? { url } : { content: o.content as string }),
      ...(o.metadata ? { metadata: o.metadata } : {}),
      ...(given ? { embedding: { model: given.model, vector: given.vector } } : {}),
    },
  }
}

const lines = (file: string) =>
  readline.createInterface({ input: fs.createReadStream(file, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY })

export const jsonlSource = async (file: string): Promise<Source> => {
  let total = 0
  for await (const line of lines(file)) if (line.trim()) total++
  const name = path.basename(file)
  return {
    total,
    items: (async function* () {
      let n = 0
      for await (const line of lines(file)) {
        n++
        if (line.trim()) yield lineItem(`${name} line ${n}`, line)
      }
    })(),
  }
}
