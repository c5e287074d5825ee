import { TextDecoder as WhatwgDecoder, getBOMEncoding } from '@exodus/bytes/encoding.js'
import { isUtf8 } from 'node:buffer'
import { fileTypeFromBuffer } from 'file-type'

export const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'

/** Images of pages, read by OCR (ingestion/ocr.ts). */
export const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/tiff']

export type Sniffed = { ok: true; mimeType: string } | { ok: false; reason: string }

/** Whether WHATWG's decoders know an encoding label (windows-1252, latin1, shift_jis, ...). */
export const knownCharset = (label: string) => {
  try {
    new WhatwgDecoder(label)
    return true
  } catch {
    return false
  }
}

/**
 * The encoding to read text bytes in: their byte-order mark's; else UTF-8 when they are valid UTF-8
 * text, whatever was declared (a UTF-8 text declared as Latin-1, a common default of clients and
 * servers, is far likelier than Latin-1 text that happens to be valid UTF-8); else the declared one.
 */
export const textEncoding = (bytes: Uint8Array, declared?: string) =>
  getBOMEncoding(bytes) ?? (declared && !(isUtf8(bytes) && !bytes.includes(0)) ? declared : 'utf-8')

/** The text of bytes in an encoding; undefined when they are not valid text in it. */
const validText = (bytes: Uint8Array, encoding: string) => {
  try {
    const text = new WhatwgDecoder(encoding, { fatal: true }).decode(bytes)
    return text.includes('\u0000') ? undefined : text
  } catch {
    return undefined
  }
}

const looksLikeHtml = (text: string) =>
  /^\s*(<!--[\s\S]*?-->\s*)*(<!doctype html|<html[\s>]|<head[\s>]|<body[\s>])/i.test(text)
const looksLikeMarkdown = (text: string) => /^(#{1,6} |\s*[-*] |\s*\d+\. |```|> )|\]\(https?:\/\//m.test(text)

/** Control characters besides white space: nothing but a binary file holds them. */
const CONTROLS = /[\u0001-\u0008\u000b\u000e-\u001f\u007f]/

/** Text that nothing but a text file would hold. */
const readsAsText = (bytes: Uint8Array, charset?: string) => {
  const text = validText(bytes, textEncoding(bytes, charset))
  return text !== undefined && !CONTROLS.test(text)
}

/** A declared charset other than UTF-8 (which is the default anyway). */
export const otherThanUtf8 = (charset?: string) => (charset && !/^utf-?8$/i.test(charset) ? charset : undefined)

/**
 * What a content's magic bytes say: a PDF, a DOCX or an image of a page, a refusal for any other binary format, or
 * undefined when they name none (text, or a text format such as XML) and the text is to be judged.
 */
export const sniffBinary = async (bytes: Uint8Array, charset?: string): Promise<Sniffed | undefined> => {
  // A UTF-16 byte-order mark is also an MPEG audio frame header to magic-byte sniffing: the text decides.
  if (getBOMEncoding(bytes)?.startsWith('utf-16'))
    return readsAsText(bytes)
      ? undefined
      : { ok: false, reason: 'the content starts with a UTF-16 byte-order mark but is not text' }
  let detected: Awaited<ReturnType<typeof fileTypeFromBuffer>>
  try {
    detected = await fileTypeFromBuffer(bytes)
  } catch {
    // The start of some format's header, cut short: a short text ("ID3 tags ...") or a truncated file.
    return readsAsText(bytes, charset)
      ? undefined
      : { ok: false, reason: 'the content is a truncated or damaged binary file' }
  }
  if (!detected) return undefined
  if (detected.mime === 'application/pdf' || detected.mime === DOCX || IMAGE_TYPES.includes(detected.mime))
    return { ok: true, mimeType: detected.mime }
  if (detected.mime === 'application/zip')
    return { ok: false, reason: 'the content is a zip archive, not a DOCX document' }
  if (detected.mime.startsWith('text/') || detected.mime === 'application/xml') return undefined
  // Some formats' magic bytes are also words ("BM", "MZ", "GIF87a"): a text that reads as text is one.
  // RTF is text too, but a document format this service does not read.
  if (detected.mime !== 'application/rtf' && readsAsText(bytes, charset)) return undefined
  return { ok: false, reason: `the content is ${detected.mime}` }
}

/**
 * What a content's text says, once its magic bytes named nothing: valid UTF-8, UTF-16 with its
 * byte-order mark, or text in the charset its sender declared (HTML when it looks like HTML;
 * Markdown by its file name or syntax), or a refusal.
 */
export const sniffText = (bytes: Uint8Array, fileName = '', charset?: string): Sniffed => {
  if (bytes.length === 0) return { ok: false, reason: 'the file is empty' }
  if (charset && !knownCharset(charset))
    return { ok: false, reason: `the declared charset ${charset} is not one this service reads` }
  const declared = otherThanUtf8(charset)
  const encoding = textEncoding(bytes, declared)
  const text = validText(bytes, encoding)
  if (
    text === undefined &&
    validText(
      bytes.filter((b) => b !== 0),
      encoding,
    ) !== undefined
  ) {
    return {
      ok: false,
      reason:
        'the file holds NUL bytes, so it is not text (text is read as UTF-8, as UTF-16 with a byte-order mark, or in ' +
        'its declared charset)',
    }
  }
  // A single-byte charset decodes any bytes: only what they decode to tells text from a binary.
  if (text === undefined || (encoding !== 'utf-8' && CONTROLS.test(text))) {
    return {
      ok: false,
      reason: declared
        ? `the content is not valid ${declared} text, nor a PDF or a DOCX document`
        : 'the content is not valid UTF-8 (or UTF-16 with a byte-order mark) text, nor a PDF or a DOCX document; ' +
          'text in another encoding is read when its charset is declared (Content-Type: text/plain; ' +
          'charset=windows-1252)',
    }
  }
  if (text.trim() === '') return { ok: false, reason: 'the file holds only white space' }
  // A page, or a fragment of one in a file named as HTML.
  if (looksLikeHtml(text) || (/\.x?html?$/i.test(fileName) && /<[a-z][\s\S]*>/i.test(text)))
    return { ok: true, mimeType: 'text/html' }
  // The name says which text it is; without one, Markdown's syntax does.
  if (/\.(md|markdown)$/i.test(fileName)) return { ok: true, mimeType: 'text/markdown' }
  if (/\.te?xt$/i.test(fileName)) return { ok: true, mimeType: 'text/plain' }
  return { ok: true, mimeType: looksLikeMarkdown(text) ? 'text/markdown' : 'text/plain' }
}

/**
 * A file's type from its content: magic bytes for PDF and zip (a DOCX is a zip holding a Word
 * document), valid text (UTF-8, UTF-16 with its byte-order mark, or the declared charset) for
 * text. The client's Content-Type is never believed for the type: its charset only says how to
 * read the bytes, and its file name only tells HTML, Markdown and plain text apart once the
 * content is known to be text.
 */
export const sniffType = async (bytes: Uint8Array, fileName = '', charset?: string): Promise<Sniffed> =>
  (await sniffBinary(bytes, charset)) ?? sniffText(bytes, fileName, charset)
