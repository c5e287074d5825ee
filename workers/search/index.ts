/**
 * Background work of searches over entries and pages, their indexes and citations.
 * What other capabilities and layers may use of it: the embedding loop the wiring starts. The rest is search's own.
 */
export { startEmbeddingFiller } from './embeddings'
