import {
  Badge,
  Button,
  Group,
  Loader,
  NumberInput,
  Paper,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core'
import { useEffect, useState } from 'react'
import { Link } from 'wouter'
import { type Answer, type ApiError, answer as answered, client } from '../api'
import { ErrorAlert } from '../components'
import { asApiError, useApi } from '../useApi'
import { CompareAnswer } from './CompareAnswer'
import { ReceiptCheck } from './ReceiptCheck'
import { type FilterRow, RetrievalFilters, filterOf } from './RetrievalFilters'

const HISTORY = 'kb.retrieval.history'
interface Asked {
  query: string
  mode: 'hybrid' | 'vector' | 'text'
  limit: number
  minScore: number
  /** Conditions on metadata keys and times, as rows of the form. */
  filters?: FilterRow[]
}
type SearchAnswer = Answer<'/api/v1/knowledge/search', 'post'>
/** A result of the full view (the console never asks for the compact one). */
type Result = Extract<SearchAnswer['results'][number], { scores: unknown }>
const results = (a: SearchAnswer) =>
  (a.results as Array<SearchAnswer['results'][number]>).filter((r): r is Result => 'scores' in r)
const history = (): Asked[] => JSON.parse(sessionStorage.getItem(HISTORY) ?? '[]')

/** The search as the service takes it: the filter rows as its `filter`. */
const searched = ({ filters, ...asked }: Asked) => {
  const filter = filterOf(filters ?? [])
  return { ...asked, ...(filter ? { filter } : {}) }
}

/** The chunk with the passage that best answers marked, as text (never as HTML). */
const Passage = ({ content, highlight }: { content: string; highlight?: { start: number; end: number } }) =>
  highlight ? (
    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
      {content.slice(0, highlight.start)}
      <mark data-testid="highlight">{content.slice(highlight.start, highlight.end)}</mark>
      {content.slice(highlight.end)}
    </Text>
  ) : (
    <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
      {content}
    </Text>
  )

const score = (x?: number) => (x === undefined ? '—' : x.toFixed(3))

/**
 * Retrieval testing: what search returns for a query, leg by leg. Mode, limit and minimum score start
 * from the workspace's search defaults, which agents' searches get too (and follow Settings' changes).
 */
export const RetrievalScreen = () => {
  const config = useApi(['config'], () => answered(client.GET('/api/v1/knowledge/config')))
  const defaults = config.data?.config.search
  const [asked, setAsked] = useState<Asked>(() => ({
    query: history()[0]?.query ?? '',
    mode: 'hybrid',
    limit: 5,
    minScore: 0.5,
  }))
  const [configured, setConfigured] = useState(false)
  useEffect(() => {
    if (!defaults) return
    const { defaultMode: mode, defaultLimit: limit, minScore } = defaults
    setAsked((a) => ({ ...a, mode, limit, minScore }))
    setConfigured(true)
  }, [defaults?.defaultMode, defaults?.defaultLimit, defaults?.minScore])
  const [answer, setAnswer] = useState<SearchAnswer>()
  /** The search the answer shown is of (the form may have changed since). */
  const [answeredFor, setAnsweredFor] = useState<Asked>()
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const [past, setPast] = useState(history)
  const run = async (a: Asked) => {
    setAsked(a)
    setBusy(true)
    setError(undefined)
    try {
      setAnswer(await answered(client.POST('/api/v1/knowledge/search', { body: searched(a) })))
      setAnsweredFor(a)
      const next = [a, ...history().filter((h) => JSON.stringify(h) !== JSON.stringify(a))].slice(0, 10)
      sessionStorage.setItem(HISTORY, JSON.stringify(next))
      setPast(next)
    } catch (e) {
      setAnswer(undefined)
      setError(asApiError(e))
    }
    setBusy(false)
  }
  return (
    <Stack>
      <Title order={2}>Retrieval testing</Title>
      {config.error && <ErrorAlert error={config.error} title="The workspace's search defaults could not be read" />}
      {!configured && !config.error ? (
        <Loader aria-label="Loading the search defaults" />
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault()
            void run(asked)
          }}
        >
          <Group align="end" gap="xs">
            <TextInput
              label="Query"
              required
              value={asked.query}
              onChange={(e) => setAsked({ ...asked, query: e.currentTarget.value })}
              style={{ flex: 1, minWidth: 220 }}
            />
            <div>
              <Text size="sm" fw={500} id="mode-label">
                Mode
              </Text>
              <SegmentedControl
                aria-labelledby="mode-label"
                data={['hybrid', 'text', 'vector']}
                value={asked.mode}
                onChange={(mode) => setAsked({ ...asked, mode })}
              />
            </div>
            <NumberInput
              label="Limit"
              min={1}
              max={50}
              value={asked.limit}
              onChange={(v) => setAsked({ ...asked, limit: Number(v) || 1 })}
              w={90}
            />
            <NumberInput
              label="Min score"
              min={0}
              max={1}
              step={0.05}
              decimalScale={2}
              value={asked.minScore}
              onChange={(v) => setAsked({ ...asked, minScore: Number(v) || 0 })}
              w={110}
            />
            <Button type="submit" loading={busy}>
              Search
            </Button>
          </Group>
          <RetrievalFilters rows={asked.filters ?? []} onChange={(filters) => setAsked({ ...asked, filters })} />
          {defaults && (
            <Text size="xs" c="dimmed" mt={4} data-testid="defaults">
              The workspace's defaults, which agents' searches get: {defaults.defaultMode}, limit{' '}
              {defaults.defaultLimit}, minimum score {defaults.minScore} (change them in Settings).
            </Text>
          )}
        </form>
      )}
      {past.length > 0 && (
        <Group gap={4} aria-label="Recent queries">
          <Text size="xs" c="dimmed">
            Recent:
          </Text>
          {past.map((h) => (
            <Button key={JSON.stringify(h)} size="compact-xs" variant="light" onClick={() => void run(h)}>
              {h.query} ({h.mode}
              {h.filters?.length ? `, ${h.filters.length} filter${h.filters.length === 1 ? '' : 's'}` : ''})
            </Button>
          ))}
        </Group>
      )}
      {error && <ErrorAlert error={error} />}
      {answer && (
        <Stack gap="xs" aria-live="polite">
          <Text size="sm" c="dimmed" data-testid="answered">
            {answer.results.length} result{answer.results.length === 1 ? '' : 's'} · answered in {answer.mode} mode
            {answer.fallback ? ` (${answer.fallback})` : ''}
          </Text>
          {answer.receipt && (
            <ReceiptCheck
              key={answer.receipt.id}
              id={answer.receipt.id}
              titles={new Map(results(answer).map((r) => [r.id, r.title]))}
            />
          )}
          {answeredFor && <CompareAnswer key={JSON.stringify(answeredFor)} asked={searched(answeredFor)} />}
          {answer.results.length === 0 && <Text c="dimmed">Nothing scored at least {asked.minScore}.</Text>}
          {results(answer).map((r, i) => (
            <Paper withBorder p="sm" key={r.id} data-testid="result">
              <Group justify="space-between" wrap="nowrap">
                <Text fw={600}>
                  {i + 1}. <Link href={`/entries/${r.id}`}>{r.title}</Link>
                </Text>
                <Badge size="lg">{score(r.score)}</Badge>
              </Group>
              {r.headingPath && (
                <Text size="sm" c="dimmed" data-testid="heading-path">
                  {r.headingPath}
                </Text>
              )}
              <Group gap="xs" my={4}>
                <Badge variant="light" color="grape">
                  text {score(r.scores.text)}
                  {r.ranks.text ? ` (#${r.ranks.text})` : ''}
                </Badge>
                <Badge variant="light" color="teal">
                  vector {score(r.scores.vector)}
                  {r.ranks.vector ? ` (#${r.ranks.vector})` : ''}
                </Badge>
                <Text size="xs" c="dimmed">
                  Cite: {r.title} · chunk {r.chunkIndex + 1} · version {r.version}
                  {r.pageUrl ? ` · ${r.pageUrl}` : ''}
                </Text>
              </Group>
              <Passage content={r.content} highlight={r.highlight} />
            </Paper>
          ))}
        </Stack>
      )}
    </Stack>
  )
}
