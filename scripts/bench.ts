// `npm run bench -- <name>`: benchmarks report ratios against a baseline measured in the same run.
const which = process.argv[2]
const benches: Record<string, () => Promise<unknown>> = {
  eventstore: () => import('./bench/eventstore'),
  'ingest-text': () => import('./bench/ingestText'),
  'ingest-files': () => import('./bench/ingestFiles'),
  'model-floor': () => import('./bench/modelFloor'),
  search: () => import('./bench/search'),
  rerank: () => import('./bench/rerank'),
  'search-ingest': () => import('./bench/searchWhileEmbedding'),
  'as-of': () => import('./bench/asOf'),
  pages: () => import('./bench/pages'),
  scale: () => import('./bench/scale'),
  ladder: () => import('./bench/ladder'),
  upkeep: () => import('./bench/upkeep'),
  uploads: () => import('./bench/blobStores'),
  'pdf-ocr': () => import('./bench/pdfOcr'),
  filters: () => import('./bench/filters'),
  'vector-index': () => import('./bench/vectorIndexCost'),
}
if (!which || !benches[which]) {
  process.stderr.write(`usage: npm run bench -- <${Object.keys(benches).join('|')}>\n`)
  process.exit(2)
}
await benches[which]()
export {}
