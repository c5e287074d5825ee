/**
 * How many times searches served an entry or a page: the count search keeps (kb_citation_counts, written by
 * its served projector), 0 for one never served. `id` is the SQL of the entry's or page's id in the query.
 */
export const citedCount = (kind: 'entry' | 'page', id: string) =>
  `coalesce((SELECT c.cited FROM kb_citation_counts c WHERE c.kind = '${kind}' AND c.id = ${id}), 0)`
