import { Badge, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { type Answer, type ApiError, type Body, answer, client } from '../api'
import { ErrorAlert, actorName, when } from '../components'
import { useSession } from '../session'
import { asApiError } from '../useApi'

// Retrieval testing's "compare with…": the search asked as of an earlier moment and now, and why the answers differ,
// from the log (POST /api/v1/knowledge/search/compare).

type Compared = Answer<'/api/v1/knowledge/search/compare', 'post'>
type Asked = Omit<Body<'/api/v1/knowledge/search/compare', 'post'>, 'from' | 'to'>

const MOVEMENT: Record<string, string> = { entered: 'green', left: 'red', rose: 'blue', fell: 'orange' }

const place = (p: { rank: number } | null) => (p ? `#${p.rank}` : '—')

/** The events between the moments behind a change: what each did, when and by whom. */
const Because = ({ because }: { because: Compared['workspace'] }) => {
  const { me } = useSession()
  return (
    <Stack gap={0}>
      {because.map((b) => (
        <Text size="xs" c="dimmed" key={b.position} data-testid="because">
          {b.causes.join(', ')} · {when(b.time)} by {actorName(b.actor as object, me?.id)} (pos:{b.position})
        </Text>
      ))}
    </Stack>
  )
}

const Comparison = ({ compared }: { compared: Compared }) => (
  <Stack gap="xs" mt="xs" data-testid="comparison">
    <Text size="sm">
      As of pos:{compared.from.position}
      {compared.from.time ? ` (${when(compared.from.time)})` : ''} and pos:{compared.to.position}
      {compared.to.time ? ` (${when(compared.to.time)})` : ''}: {compared.moved.length} result
      {compared.moved.length === 1 ? '' : 's'} moved.
    </Text>
    {compared.workspace.length > 0 && (
      <Paper withBorder p="xs" data-testid="workspace-changes">
        <Text size="sm" fw={600}>
          Every search changed
        </Text>
        <Because because={compared.workspace} />
      </Paper>
    )}
    {compared.moved.map((m) => (
      <Paper withBorder p="xs" key={m.id} data-testid="moved" data-movement={m.movement}>
        <Group justify="space-between" wrap="nowrap">
          <Text size="sm" fw={600} truncate>
            <Link href={`/entries/${m.id}`}>{m.title}</Link>
          </Text>
          <Group gap={4} wrap="nowrap">
            <Text size="xs" c="dimmed">
              {place(m.before)} → {place(m.after)}
            </Text>
            <Badge color={MOVEMENT[m.movement] ?? 'gray'} variant="light">
              {m.movement}
            </Badge>
          </Group>
        </Group>
        {m.because.length > 0 ? (
          <Because because={m.because} />
        ) : (
          <Text size="xs" c="dimmed">
            No change of its own: others entered or left around it.
          </Text>
        )}
      </Paper>
    ))}
    {compared.deleted.length > 0 && (
      <Paper withBorder p="xs" data-testid="deleted">
        <Text size="sm" fw={600}>
          Deleted between the moments (their content is no longer served, as of any moment)
        </Text>
        {compared.deleted.map((d) => (
          <Text size="xs" c="dimmed" key={d.id}>
            {d.title ?? d.id} · {when(d.time)}
          </Text>
        ))}
      </Paper>
    )}
  </Stack>
)

/** A moment to compare with (an ISO time or pos:<n>) and the comparison, asked on "Compare". */
export const CompareAnswer = ({ asked }: { asked: Asked }) => {
  const [from, setFrom] = useState('')
  const [compared, setCompared] = useState<Compared>()
  const [error, setError] = useState<ApiError>()
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    setError(undefined)
    try {
      setCompared(
        await answer(client.POST('/api/v1/knowledge/search/compare', { body: { ...asked, from: from.trim() } })),
      )
    } catch (e) {
      setCompared(undefined)
      setError(asApiError(e))
    }
    setBusy(false)
  }
  return (
    <Paper withBorder p="sm">
      <Group align="end" gap="xs">
        <TextInput
          label="Compare with the answer as of"
          description="an ISO time (2026-11-01T09:00:00Z) or a log position (pos:120, as a receipt gives it)"
          value={from}
          onChange={(e) => setFrom(e.currentTarget.value)}
          style={{ flex: 1 }}
        />
        <Button variant="light" onClick={() => void run()} loading={busy} disabled={!from.trim()}>
          Compare
        </Button>
      </Group>
      {error && <ErrorAlert error={error} />}
      {compared && <Comparison compared={compared} />}
    </Paper>
  )
}
