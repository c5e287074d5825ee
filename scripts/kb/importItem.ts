// What `kb import` reads from any source (a folder, an archive, a JSONL file) and sends: its items.

/** One thing to import: a file (its bytes read when its turn comes), an entry of a line, or a refusal. */
export interface Item {
  /** How the summary names it: a relative path, or `<file> line <n>`. */
  label: string
  /** The external reference id that makes a second run skip it (`externalRef.<key>=<value>`). */
  ref?: { key: string; value: string }
  /** The folder it goes in (`a/b`), none at the top. */
  folder?: string | null
  /** A file's bytes, or why they cannot be read. */
  file?: { read: () => Promise<Buffer | string> }
  entry?: { title: string; content?: string; url?: string; metadata?: unknown; embedding?: unknown }
  /** Why it is not sent at all. */
  refused?: string
}

export interface Source {
  /** How many items it holds (for the progress's rate and ETA). */
  total: number
  items: AsyncIterable<Item>
  close?: () => Promise<void>
}

/** A folder path as a source writes it (`a/b/`, ` a / b`): its parts trimmed, empty ones dropped. */
export const folderPath = (p: string | undefined) => {
  const parts = (p ?? '')
    .split('/')
    .map((s) => s.trim())
    .filter(Boolean)
  return parts.length ? parts.join('/') : null
}
