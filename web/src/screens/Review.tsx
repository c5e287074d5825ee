import { Alert, Badge, Button, Group, Modal, Paper, Stack, Text, Textarea, Title } from '@mantine/core'
import { useState } from 'react'
import { Link } from 'wouter'
import { type Answer, ApiError, answer, client } from '../api'
import { Diff, LoadState, authorName, when } from '../components'
import { useSession } from '../session'
import { act, invalidate, useApi } from '../useApi'

type Proposal = Answer<'/api/v1/proposals/{id}', 'get'>
/** What a decision changes: the queue, its count in the menu, and the pages. */
const DECIDED = [['proposals'], ['pages']]

const age = (iso: string) => {
  const minutes = Math.round((Date.now() - Date.parse(iso)) / 60_000)
  return minutes < 60 ? `${minutes} min` : minutes < 2880 ? `${Math.round(minutes / 60)} h` : `${Math.round(minutes / 1440)} d`
}

/** One held write: its diff; approve (confirming when the page moved on) or reject with a reason. */
const Held = ({ p }: { p: Proposal }) => {
  const { canWrite } = useSession()
  const [conflict, setConflict] = useState<ApiError>()
  const [rejecting, setRejecting] = useState(false)
  const [reason, setReason] = useState('')
  const approve = async (confirm: boolean) => {
    try {
      const path = { id: p.id }
      await answer(client.POST('/api/v1/proposals/{id}/approve', { params: { path }, body: confirm ? { confirm } : {} }))
      await invalidate(...DECIDED)
    } catch (e) {
      if (e instanceof ApiError && e.code === 'VERSION_CONFLICT') setConflict(e)
      else await act('Approving', () => Promise.reject(e))
    }
  }
  return (
    <Paper withBorder p="sm" data-testid="proposal">
      <Stack gap="xs">
        <Group justify="space-between">
          <Text fw={600}>
            {p.newPage ? 'New page: ' : ''}
            {p.newPage ? p.pageTitle : <Link href={`/pages/${p.pageId}`}>{p.pageTitle}</Link>}
          </Text>
          <Group gap="xs">
            <Badge variant="light">{authorName(p.author)}</Badge>
            <Badge variant="light" color="gray">
              {age(p.createdAt)} ago
            </Badge>
            <Badge variant="light" color="orange">
              +{p.change.added} −{p.change.removed}
            </Badge>
          </Group>
        </Group>
        <Diff diff={p.diff} layout="line-by-line" />
        {conflict && (
          <Alert color="orange" title="The page has moved on since this proposal" data-testid="approve-conflict">
            <Text size="sm">{conflict.message}</Text>
            <Group mt="xs">
              <Button size="xs" color="orange" onClick={() => approve(true)}>
                Publish anyway
              </Button>
              <Button size="xs" variant="default" onClick={() => setConflict(undefined)}>
                Not now
              </Button>
            </Group>
          </Alert>
        )}
        {canWrite && !conflict && (
          <Group>
            <Button size="xs" color="green" onClick={() => approve(false)}>
              Approve
            </Button>
            <Button size="xs" color="red" variant="light" onClick={() => setRejecting(true)}>
              Reject
            </Button>
          </Group>
        )}
      </Stack>
      <Modal opened={rejecting} onClose={() => setRejecting(false)} title="Reject this proposal">
        <form
          onSubmit={async (e) => {
            e.preventDefault()
            const reject = () =>
              answer(client.POST('/api/v1/proposals/{id}/reject', { params: { path: { id: p.id } }, body: { reason } }))
            if (await act('Rejecting', reject, 'Rejected', DECIDED)) setRejecting(false)
          }}
        >
          <Stack>
            <Textarea label="Reason (the agent reads it)" required value={reason} onChange={(e) => setReason(e.currentTarget.value)} />
            <Button type="submit" color="red" disabled={!reason.trim()}>
              Reject
            </Button>
          </Stack>
        </form>
      </Modal>
    </Paper>
  )
}

export const ReviewScreen = () => {
  const pending = useApi(['proposals', 'pending'], () =>
    answer(client.GET('/api/v1/proposals', { params: { query: { status: 'pending', limit: 50 } } })),
  )
  return (
    <Stack>
      <Title order={2}>
        Review queue{' '}
        {pending.data?.total ? (
          <Badge color="orange" size="lg">
            {pending.data.total}
          </Badge>
        ) : null}
      </Title>
      <LoadState loaded={pending} empty="Nothing waits for review." isEmpty={(d) => d.items.length === 0}>
        {(d) => d.items.map((p) => <Held key={p.id} p={p} />)}
      </LoadState>
      <Text size="xs" c="dimmed">
        Held writes come from agents writing into collections whose policy is "hold for review". Listed {when(new Date().toISOString())}.
      </Text>
    </Stack>
  )
}
