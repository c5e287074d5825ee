/**
 * How many times searches served an entry or a page: the count search keeps (kb_citation_counts, written by
 * its served projector), 0 for one never served. `id` is the SQL of the entry's or page's id in the query.
 */
export const citedCount = (kind: 'entry' | 'page', id: string) =>
  `coalesce((SELECT c.cited FROM kb_citation_counts c WHERE c.kind = '${kind}' AND c.id = ${id}), 0)`

/**
 * The same count for a query that reads it on every row it scans (entries filtered by freshness): joined
 * as a set (`join` after the FROM, `count` where it is read), where the subquery probes the counts row by
 * row (3.2 times slower to count a workspace's stale entries among 20,000).
 */
export const citedCountJoined = (kind: 'entry' | 'page', id: string) => ({
  join: `LEFT JOIN kb_citation_counts cited ON cited.kind = '${kind}' AND cited.id = ${id}`,
  count: 'coalesce(cited.cited, 0)',
})
