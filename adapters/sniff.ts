import { TextDecoder as WhatwgDecoder, getBOMEncoding } from '@exodus/bytes/encoding.js'
import { fileTypeFromBuffer } from 'file-type'

export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

export type Sniffed = { ok: true; mimeType: string } | { ok: false; reason: string }

/** The text of UTF-8 bytes, or of UTF-16 ones that start with their byte-order mark. */
const validText = (bytes: Uint8Array) => {
  try {
    const text = new WhatwgDecoder(getBOMEncoding(bytes) ?? 'utf-8', { fatal: true }).decode(bytes)
    return text.includes('\u0000') ? undefined : text
  } catch {
    return undefined
  }
}

const looksLikeHtml = (text: string) => /^\s*(<!--[\s\S]*?-->\s*)*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text)
const looksLikeMarkdown = (text: string) => /^(#{1,6} |\s*[-*] |\s*\d+\. |```|> )|\]\(https?:\/\//m.test(text)

/** Text that nothing but a text file would hold: no control characters besides white space. */
const readsAsText = (bytes: Uint8Array) => {
  const text = validText(bytes)
  return text !== undefined && !/[\u0001-\u0008\u000b\u000e-\u001f\u007f]/.test(text)
}

/**
 * What a content's magic bytes say: a PDF or a DOCX, a refusal for any other binary format, or
 * undefined when they name none (text, or a text format such as XML) and the text is to be judged.
 */
export const sniffBinary = async (bytes: Uint8Array): Promise<Sniffed | undefined> => {
  // A UTF-16 byte-order mark is also an MPEG audio frame header to magic-byte sniffing: the text decides.
  if (getBOMEncoding(bytes)?.startsWith('utf-16')) return readsAsText(bytes) ? undefined : { ok: false, reason: 'the content starts with a UTF-16 byte-order mark but is not text' }
  let detected: Awaited<ReturnType<typeof fileTypeFromBuffer>>
  try {
    detected = await fileTypeFromBuffer(bytes)
  } catch {
    // The start of some format's header, cut short: a short text ("ID3 tags ...") or a truncated file.
    return readsAsText(bytes) ? undefined : { ok: false, reason: 'the content is a truncated or damaged binary file' }
  }
  if (!detected) return undefined
  if (detected.mime === 'application/pdf' || detected.mime === DOCX) return { ok: true, mimeType: detected.mime }
  if (detected.mime === 'application/zip') return { ok: false, reason: 'the content is a zip archive, not a DOCX document' }
  if (detected.mime.startsWith('text/') || detected.mime === 'application/xml') return undefined
  // Some formats' magic bytes are also words ("BM", "MZ", "GIF87a"): a text that reads as text is one.
  // RTF is text too, but a document format this service does not read.
  if (detected.mime !== 'application/rtf' && readsAsText(bytes)) return undefined
  return { ok: false, reason: `the content is ${detected.mime}` }
}

/**
 * What a content's text says, once its magic bytes named nothing: valid UTF-8, or UTF-16 with its
 * byte-order mark (HTML when it looks like HTML; Markdown by its file name or syntax), or a refusal.
 */
export const sniffText = (bytes: Uint8Array, fileName = ''): Sniffed => {
  if (bytes.length === 0) return { ok: false, reason: 'the file is empty' }
  const text = validText(bytes)
  if (text === undefined) return { ok: false, reason: 'the content is not valid UTF-8 (or UTF-16 with a byte-order mark) text, nor a PDF or a DOCX document' }
  if (text.trim() === '') return { ok: false, reason: 'the file holds only white space' }
  // A page, or a fragment of one in a file named as HTML.
  if (looksLikeHtml(text) || (/\.x?html?$/i.test(fileName) && /<[a-z][\s\S]*>/i.test(text))) return { ok: true, mimeType: 'text/html' }
  // The name says which text it is; without one, Markdown's syntax does.
  if (/\.(md|markdown)$/i.test(fileName)) return { ok: true, mimeType: 'text/markdown' }
  if (/\.te?xt$/i.test(fileName)) return { ok: true, mimeType: 'text/plain' }
  return { ok: true, mimeType: looksLikeMarkdown(text) ? 'text/markdown' : 'text/plain' }
}

/**
 * A file's type from its content: magic bytes for PDF and zip (a DOCX is a zip holding a Word
 * document), UTF-8 validity (or a UTF-16 byte-order mark) for text. The client's Content-Type is never believed; its file
 * name only tells Markdown from plain text once the content is known to be text.
 */
export const sniffType = async (bytes: Uint8Array, fileName = ''): Promise<Sniffed> => (await sniffBinary(bytes)) ?? sniffText(bytes, fileName)
