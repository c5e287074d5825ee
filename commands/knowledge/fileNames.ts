// What an entry is named after: a file's name, cleaned, or its first line.

/** The first `n` characters (code points: an emoji is never cut in two). */
export const firstChars = (s: string, n: number) => (s.length <= n ? s : [...s].slice(0, n).join(''))

/** A title from the file name (without extension), else from the content's first line. */
export const titleOf = (fileName: string, bytes: Buffer) => {
  const fromName = fileName
    .replace(/\.[^.]*$/, '')
    .replace(/[_-]+/g, ' ')
    .trim()
  if (fromName && fromName !== 'upload') return firstChars(fromName, 500)
  const firstLine = bytes
    .subarray(0, 2000)
    .toString('utf8')
    .split('\n')
    .map((l) => l.replace(/^#+\s*/, '').trim())
    .find((l) => /\w/.test(l))
  return firstChars(firstLine ?? 'Untitled upload', 500)
}

/** The client's file name as metadata only: no directories, no control characters, bounded. */
export const cleanFileName = (name: string) => {
  const base = name.split(/[\\/]/).pop() ?? ''
  // Cut by code points: a cut between the halves of an emoji leaves a string JSON cannot store.
  const clean = [
    ...base
      .replace(/[\u0000-\u001f\u007f]/g, '')
      .replace(/^\.+/, '')
      .trim(),
  ]
    .slice(0, 255)
    .join('')
  return clean || 'upload'
}
