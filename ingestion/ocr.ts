import { createRequire } from 'node:module'
import path from 'node:path'
import { imageSize } from 'image-size'
import { OEM, createWorker } from 'tesseract.js'
import { ParseError } from './parseError'

// Optical character recognition of scans and photos of pages: Tesseract (tesseract.js, WebAssembly) with its
// English model shipped as an npm package, so nothing is fetched at run time. It runs inside a parser worker
// (ingestion/parserPool.ts), whose deadline and page count bound it; its memory is bounded by the size of the
// images it is given, which are checked before they are decoded.

/** The English LSTM model (integer-quantised "best"), as tesseract.js reads it: gzipped, from this folder. */
const LANG_PATH = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@tesseract.js-data/eng/package.json')),
  '4.0.0_best_int',
)

export const OCR_LIMITS = {
  /** The largest image read (width × height): about a page scanned at 600 dpi. */
  pixels: 36_000_000,
  /** Pages of one PDF read by OCR at most. */
  pages: 200,
  /** Under this mean word confidence (0-100) a page's words are taken as noise, not text. */
  confidence: 30,
}

/** What OCR made of one image: its text ('' when nothing could be read) and, when nothing, why. */
export interface Read {
  text: string
  unread?: string
}

/** A reader of images, made once per document (the model takes about half a second to load) and closed after. */
export const ocrReader = async () => {
  const worker = await createWorker('eng', OEM.LSTM_ONLY, {
    langPath: LANG_PATH,
    gzip: true,
    cacheMethod: 'none',
    // A job that fails (an image its decoder cannot read) rejects its promise; without a handler, tesseract.js
    // would also throw it where nothing catches it, and the parser worker would die of it.
    errorHandler: () => {},
  })
  return {
    async read(image: Uint8Array): Promise<Read> {
      const { data } = await worker.recognize(Buffer.from(image))
      const text = data.text.replace(/[ \t]+\n/g, '\n').trim()
      if (!text) return { text: '', unread: 'no text was found on it' }
      if (data.confidence < OCR_LIMITS.confidence)
        return {
          text: '',
          unread: `what was found on it is not legible text (confidence ${Math.round(data.confidence)}%)`,
        }
      return { text }
    },
    close: () => worker.terminate(),
  }
}

/** The size of an image from its header, refused before decoding when over the limit or unreadable. */
const checkImage = (bytes: Uint8Array, kind: string) => {
  let size: { width?: number; height?: number }
  try {
    size = imageSize(bytes)
  } catch (error) {
    throw new ParseError(`the ${kind} is damaged: its size could not be read`, (error as Error).message)
  }
  const { width = 0, height = 0 } = size
  if (width * height > OCR_LIMITS.pixels)
    throw new ParseError(
      `the ${kind} is ${width} × ${height} pixels, over the limit of ${OCR_LIMITS.pixels / 1_000_000} megapixels ` +
        'read by OCR',
    )
  return { width, height }
}

/** An uploaded image of a page: its text by OCR. */
export const imageText = async (bytes: Uint8Array, mimeType: string) => {
  const kind = mimeType.replace('image/', '').toUpperCase()
  checkImage(bytes, `${kind} image`)
  const reader = await ocrReader()
  try {
    const read = await reader.read(bytes)
    if (!read.text) throw new ParseError(`no text could be read from the image by OCR: ${read.unread}`)
    return read.text
  } catch (error) {
    if (error instanceof ParseError) throw error
    throw new ParseError(`the ${kind} image could not be read: it is damaged`, String(error))
  } finally {
    await reader.close().catch(() => {})
  }
}
