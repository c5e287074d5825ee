import { SETS, loadDocs, loadQuestions } from '../eval/sets'

const python = SETS.find((s) => s.name === 'python')!

/**
 * The benches' documents: the Python evaluation set's, each cut to the 5,000 characters the figures were measured at.
 */
export const benchDocs = () => loadDocs(python).map((d) => ({ title: d.title, text: d.text.slice(0, 5000) }))

/** The benches' queries: the Python evaluation set's questions. */
export const benchQueries = () => loadQuestions(python).map((q) => q.query)
