import { createHash } from 'node:crypto'
import { type Tiktoken, getEncoding } from 'js-tiktoken'

// cl100k_base: the encoding of OpenAI's embedding models, so token counts match what they bill.
let encoder: Tiktoken | undefined
const enc = () => (encoder ??= getEncoding('cl100k_base'))

// Text that spells a special token (`<|endoftext|>`) is counted as the text it is, never refused.
export const countTokens = (text: string): number => (text ? enc().encode(text, [], []).length : 0)

/** An entry's searchableText: normalised lowercase words, punctuation and extra spaces removed. */
export const searchableText = (text: string): string =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

/** SHA-256 of a text (UTF-8), hex: how served text and cached embeddings are named. */
export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex')
