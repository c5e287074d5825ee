// The names and limits of the search indexes that their projectors write and the queries read.

/** Statistics of the knowledge search's fields: `chunk` (kb_chunks), `title` and `body` (kb_chunk_entries). */
export const CHUNK_STATS = 'kb_chunk'

/** Statistics of the page search's one field, `page` (a version's title and content). */
export const PAGE_STATS = 'kb_page'

/** A page's vector comes from its title and the head of its content (pages are searched whole). */
export const PAGE_EMBED_CHARS = 8000
